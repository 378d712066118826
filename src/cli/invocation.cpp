// invocation.cpp - errors and usage errors in rdelta's voice or rdiff's.
#include "invocation.hpp"

#include "preflight.hpp"
#include "rdiff_messages.hpp"

#include <cstdio>

namespace rdelta::cli {

int report_usage(const invocation& inv, const std::string& message) {
    if (inv.as_rdiff)
        std::fprintf(stderr, "%s: %s\n\nTry `%s --help' for more information.\n", inv.prog.c_str(), message.c_str(),
                     inv.prog.c_str());
    else
        std::fprintf(stderr, "%s: %s%s (see '%s --help')\n", inv.prog.c_str(), message.c_str(),
                     spelling_hint(message).c_str(), inv.prog.c_str());
    return exit_code(errc::syntax_error);
}

std::string describe(const invocation& inv, const error& e) {
    // Under the name rdiff the advice still names rdelta: only it has the command.
    const std::string tool = inv.as_rdiff ? "rdelta" : inv.prog;
    switch (e.fix) {
        case remedy::none: break;
        case remedy::recover:
            return e.message + "; `" + tool + " recover" + (e.subject.empty() ? "" : " " + e.subject) +
                   "` finishes or rolls back what was interrupted";
        case remedy::allow_replace: return e.message + " (use --force to overwrite)";
        case remedy::no_journal: return e.message + " (--no-journal patches without one)";
        case remedy::in_place_safe: return e.message + "; make it with delta --in-place-safe";
        case remedy::allow_unrecorded: return e.message + " (--force applies it anyway)";
    }
    return e.message;
}

int report(const invocation& inv, const error& e) {
    if (inv.as_rdiff) {
        error said = e;
        said.message = describe(inv, e);
        return rdiff_messages::failed(said);
    }
    std::fprintf(stderr, "%s: %s\n", inv.prog.c_str(), describe(inv, e).c_str());
    return exit_code(e.code);
}

std::string file_arg(const request& req, std::size_t i) {
    return i < req.files.size() ? req.files[i] : "-";
}

}  // namespace rdelta::cli
