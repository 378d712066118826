// info_command.hpp - `rdelta info [--check] [--json] FILE`: what a signature or
// delta holds, validated without applying it.
#pragma once

#include "invocation.hpp"

namespace rdelta::cli {

/// Describe (or with --check only validate) one signature or delta; returns the
/// exit status: 0, or the code delta or patch would give for the same damage.
int info_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
