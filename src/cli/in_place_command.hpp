// in_place_command.hpp - `patch --in-place IMAGE [DELTA]` and `recover IMAGE`.
#pragma once

#include "invocation.hpp"

#include <functional>

namespace rdelta::cli {

/// patch --in-place: recover a journal left by an interrupted run, then apply the
/// delta with an undo journal. `check_args` runs after the files are opened (rdiff's
/// order of checks) and returns non-zero to stop with that status.
int in_place_patch(const request& req, const invocation& inv, const std::function<int()>& check_args);

/// recover IMAGE: roll back (or finish) an interrupted in-place patch.
int recover_command(const request& req, const invocation& inv);

/// verify IMAGE: read the whole image and compare it with the manifest the last
/// in-place patch left (bit rot, or a change made without rdelta).
int verify_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
