// commands.hpp - the signature, delta and patch commands of the CLI.
#pragma once

#include "options.hpp"

#include <string>

namespace rdelta::cli {

/// Who we are: the program name for messages, and whether invoked as rdiff.
struct invocation {
    std::string prog = "rdelta";
    bool as_rdiff = false;
};

/// Print a usage error in the invocation's style; returns the exit status (101).
int report_usage(const invocation& inv, const std::string& message);

/// Run the requested action; returns the process exit status.
int run_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
