// cleanup_signals.cpp - removing a pending temporary output when a signal ends
// the process (rdelta/file.hpp install_cleanup_handlers).
#include "posix_util.hpp"

#include <rdelta/file.hpp>

#include <climits>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace rdelta {

namespace io_detail {

namespace {

volatile std::sig_atomic_t temp_registered = 0;
char temp_path_for_signal[PATH_MAX];

}  // namespace

void register_temp(const std::string& path) {
    if (path.size() >= sizeof temp_path_for_signal) return;
    std::memcpy(temp_path_for_signal, path.c_str(), path.size() + 1);
    temp_registered = 1;
}

void unregister_temp() { temp_registered = 0; }

namespace {

extern "C" void remove_temp_and_die(int sig) {
    if (temp_registered) unlink(temp_path_for_signal);  // async-signal-safe
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}


}  // namespace

}  // namespace io_detail

void install_cleanup_handlers() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
        struct sigaction sa {};
        sa.sa_handler = io_detail::remove_temp_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
    }
}

}  // namespace rdelta
