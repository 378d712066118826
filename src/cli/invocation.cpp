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

int report(const invocation& inv, const error& e) {
    if (inv.as_rdiff) return rdiff_messages::failed(e);
    std::fprintf(stderr, "%s: %s\n", inv.prog.c_str(), e.message.c_str());
    return exit_code(e.code);
}

std::string file_arg(const request& req, std::size_t i) {
    return i < req.files.size() ? req.files[i] : "-";
}

}  // namespace rdelta::cli
