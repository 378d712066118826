// preflight.hpp - checks of a parsed command line that rdiff does not make, run
// before any file is opened (under the name rdelta only): options that contradict
// each other, binary output to a terminal, an unknown RDELTA_FORCE_ISA, and hints
// for rsync's spellings of our options. (An option given to a command it does not
// apply to is refused while parsing: each option's row names its commands.)
#pragma once

#include "options.hpp"

#include <optional>
#include <string>

namespace rdelta::cli {

/// A usage problem with the request (without the program name), or nullopt.
std::optional<std::string> misapplied_option(const request& req);

/// Why standard output must not receive this command's binary output (a terminal
/// without --force), or nullopt.
std::optional<std::string> binary_to_terminal(const request& req);

/// The problem with RDELTA_FORCE_ISA, when it is set to an unknown level.
std::optional<std::string> bad_force_isa();

/// " (did you mean --in-place?)" and the like for an unknown option that rsync
/// or a typo spells differently; "" when there is no such hint.
std::string spelling_hint(const std::string& usage_message);

}  // namespace rdelta::cli
