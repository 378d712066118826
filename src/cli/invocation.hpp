// invocation.hpp - what every command shares: who we are (rdelta, or rdelta
// answering as rdiff), how errors and usage errors are reported in that voice,
// and the file arguments as rdiff reads them. Commands include this header; the
// command table includes the commands; nothing here knows the table.
#pragma once

#include "exit_codes.hpp"
#include "options.hpp"

#include <rdelta/error.hpp>

#include <cstddef>
#include <string>

namespace rdelta::cli {

/// Who we are: the program name for messages, and whether invoked as rdiff.
struct invocation {
    std::string prog = "rdelta";
    bool as_rdiff = false;
};

/// Print a usage error in the invocation's style; returns the exit status (101).
int report_usage(const invocation& inv, const std::string& message);

/// An error's message with the tool's advice for its remedy (error::fix) in the
/// tool's words: the command or option that does it.
std::string describe(const invocation& inv, const error& e);

/// Print a failure ("rdelta: MESSAGE" and its advice, or rdiff's own line under
/// its name); returns the exit status for its code.
int report(const invocation& inv, const error& e);

/// The file argument at `i`, or "-" (a standard stream) when it was not given.
std::string file_arg(const request& req, std::size_t i);

}  // namespace rdelta::cli
