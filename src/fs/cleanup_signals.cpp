// cleanup_signals.cpp - removing a pending temporary output when a signal ends
// the process (rdelta/process.hpp install_cleanup_handlers).
#include "posix_util.hpp"

#include <rdelta/process.hpp>

#include <unistd.h>
#include <atomic>
#include <climits>
#include <csignal>
#include <cstring>

namespace rdelta {

namespace io_detail {

namespace {

volatile std::sig_atomic_t temp_registered = 0;
char temp_path_for_signal[PATH_MAX];
// Any thread may take the signal: lock-free atomics are async-signal-safe.
std::atomic<int> deferrals{0};
std::atomic<int> deferred_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

}  // namespace

void register_temp(const std::string& path) {
    if (path.size() >= sizeof temp_path_for_signal) return;
    std::memcpy(temp_path_for_signal, path.c_str(), path.size() + 1);
    temp_registered = 1;
}

void unregister_temp() {
    temp_registered = 0;
}

namespace {

// Remove the temporary file, then die of the same signal with its default action,
// so the parent sees "killed by SIGxxx" (a shell's 128+N), not an exit status.
// The signal is blocked while its handler runs: unblock it after re-raising it.
void die_of(int sig);

extern "C" void remove_temp_and_die(int sig) {
    if (deferrals.load() > 0) {
        int none = 0;
        deferred_signal.compare_exchange_strong(none, sig);
        // The deferral may have ended meanwhile, having seen no signal.
        if (deferrals.load() > 0) return;
        sig = deferred_signal.exchange(0);
        if (sig == 0) return;  // the ending deferral took it
    }
    die_of(sig);
}

void die_of(int sig) {
    if (temp_registered) unlink(temp_path_for_signal);  // async-signal-safe
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    _exit(128 + sig);  // only if the default action did not end the process
}

}  // namespace

signal_deferral::signal_deferral() {
    deferrals.fetch_add(1);
}

signal_deferral::~signal_deferral() {
    if (deferrals.fetch_sub(1) != 1) return;
    if (const int sig = deferred_signal.exchange(0)) die_of(sig);
}

}  // namespace io_detail

// Every signal whose default action ends the process and that a user, a shell or
// a resource limit commonly sends. A disposition inherited as SIG_IGN (nohup,
// `trap '' PIPE`) is the caller's choice and stays: ignored SIGPIPE makes a write
// to a closed pipe fail with EPIPE, an I/O error.
void install_cleanup_handlers() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ, SIGALRM, SIGUSR1, SIGUSR2, SIGQUIT}) {
        struct sigaction old {};
        if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
        struct sigaction sa {};
        sa.sa_handler = io_detail::remove_temp_and_die;
        sigemptyset(&sa.sa_mask);
        // Block the other cleanup signals while one is handled: the path must not
        // be unlinked twice nor a second handler race the first.
        for (int other : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ, SIGALRM, SIGUSR1, SIGUSR2, SIGQUIT})
            sigaddset(&sa.sa_mask, other);
        sigaction(sig, &sa, nullptr);
    }
}

}  // namespace rdelta
