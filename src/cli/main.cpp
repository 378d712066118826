// main.cpp - rdelta's entry point: parse, run, map errors to rdiff's exit codes.
#include <rdelta/file.hpp>
#include "command_table.hpp"
#include "exit_codes.hpp"
#include "options.hpp"

#include <rdelta/version.hpp>
#include "preflight.hpp"

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <new>
#include <system_error>
#include <variant>

namespace {

// Out of memory (or no thread could be started) where no error value could carry
// it: the outputs' destructors have removed their temporary files by the time this
// runs. rdiff's words under its name.
int out_of_memory(const rdelta::cli::invocation& inv, const char* what) {
    if (inv.as_rdiff)
        std::fputs("rdiff: Failed, out of memory.\n", stderr);
    else
        std::fprintf(stderr, "%s: out of memory (%s)\n", inv.prog.c_str(), what);
    return rdelta::cli::exit_code(rdelta::errc::mem_error);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace rdelta::cli;
    // Before anything is opened: a closed fd 2 must not become an output.
    if (!rdelta::ensure_standard_fds_open()) return exit_code(rdelta::errc::io_error);
    invocation inv;
    const char* slash = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
    const char* name = argc > 0 ? (slash ? slash + 1 : argv[0]) : "rdelta";
    inv.as_rdiff = std::strcmp(name, "rdiff") == 0;
    inv.prog = inv.as_rdiff ? "rdiff" : "rdelta";

    try {
        auto parsed = parse_command_line(argc, argv, inv.as_rdiff);
        // rdiff warns once per -v reached, even before help, version or a usage error.
        auto warn_trace = [&](int count) {
            for (int i = 0; inv.as_rdiff && i < count; ++i)
                std::fputs("rdiff: Library does not support trace.\n", stderr);
        };
        if (auto* usage = std::get_if<usage_error>(&parsed)) {
            warn_trace(usage->verbose_count);
            return report_usage(inv, usage->message);
        }
        const request& req = std::get<request>(parsed);
        warn_trace(req.verbose_count);
        if (req.show_help) {
            const std::string text =
                req.help_topic == action::none ? help_text(inv.as_rdiff) : command_help(req.help_topic);
            return std::fputs(text.c_str(), stdout), 0;
        }
        if (!inv.as_rdiff)
            if (auto problem = bad_force_isa()) return report_usage(inv, *problem);
        if (req.show_version) {
            // Under the name rdiff, rdiff's exact bytes (scripts parse them); a person at a
            // terminal is also told who really answers.
            if (inv.as_rdiff && ::isatty(STDERR_FILENO))
                std::fprintf(stderr, "(this is rdelta %s, answering as rdiff)\n", RDELTA_VERSION);
            return std::fputs(version_text(inv.as_rdiff).c_str(), stdout), 0;
        }

        rdelta::install_cleanup_handlers();
        return run_command(req, inv);
    } catch (const std::bad_alloc&) {
        return out_of_memory(inv, "an allocation failed");
    } catch (const std::system_error& e) {
        // std::thread and thread pools report a thread they could not start so.
        return out_of_memory(inv, e.what());
    }
}
