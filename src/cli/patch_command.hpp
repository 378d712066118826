// patch_command.hpp - `patch BASIS [DELTA [NEWFILE]]` and `patch --in-place BASIS [DELTA]`.
#pragma once

#include "invocation.hpp"

namespace rdelta::cli {

/// Apply DELTA (standard input by default) to BASIS, writing NEWFILE (standard
/// output), or BASIS itself with --in-place; returns the exit status.
int patch_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
