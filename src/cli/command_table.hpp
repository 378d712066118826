// command_table.hpp - rdelta's commands, one row each: what the parser matches
// (names and their shortest abbreviations), what the help lists (usage lines and
// one-line descriptions), what the argument count must be, and the function that
// runs the command. Adding a command is adding its row (command_table.cpp), its
// action (options.hpp) and the options that apply to it (option_table.cpp).
//
// The parser and the help include this header; command_table.cpp includes every
// command; no command includes this header back (they share invocation.hpp).
#pragma once

#include "invocation.hpp"

#include <cstddef>
#include <span>
#include <string_view>

namespace rdelta::cli {

/// One command. A row names what it needs (designated initializers); the rest
/// keeps the defaults: any prefix abbreviates it (rdiff's isprefix()), rdelta only,
/// no file count checked before the command runs.
struct command {
    action act = action::none;
    const char* name = "";   ///< as typed in full
    const char* usage = "";  ///< the usage line, after "Usage: rdelta "
    const char* what = "";   ///< the one-line description, for --help and `rdelta help COMMAND`
    int (*run)(const request& req, const invocation& inv) = nullptr;
    std::size_t min_prefix = 0;                            ///< the shortest abbreviation accepted
    bool rdiff_too = false;                                ///< also a command under the name rdiff
    std::size_t min_files = 0;                             ///< fewer file arguments are a usage error...
    std::size_t max_files = static_cast<std::size_t>(-1);  ///< ...and so are more (the default: no limit here)
    const char* files_usage = nullptr;                     ///< the usage a wrong file count shows; nullptr: `usage`
};

/// Every command, in the order of the help's usage lines and command list (a
/// word matches the first command it abbreviates).
std::span<const command> command_table();

/// The row of action `a`, or nullptr for action::none.
const command* find_command(action a);

/// The command `word` names under the name rdiff (`as_rdiff`) or rdelta: the first
/// that `word` abbreviates, or action::none.
action match_action(std::string_view word, bool as_rdiff);

/// The commands' names, comma-separated, with "help" last (for messages).
const std::string& command_names();

/// Run the requested action; returns the process exit status.
int run_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
