// pull_command.cpp - bringing a remote image or restore point back over ssh.
#include "pull_command.hpp"

#include "exit_codes.hpp"

#include <cstdio>

namespace rdelta::cli {

int pull_command(const request&, const invocation& inv) {
    std::fprintf(stderr, "%s: pull is not built yet\n", inv.prog.c_str());
    return exit_code(errc::unimplemented);
}

}  // namespace rdelta::cli
