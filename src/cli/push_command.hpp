// push_command.hpp - `push IMAGE [USER@]HOST:PATH`: the nightly backup over ssh.
#pragma once

#include "invocation.hpp"

namespace rdelta::cli {

/// Send IMAGE's changes to the copy at HOST:PATH (rdelta run there through ssh),
/// keeping the signature of what the remote holds on this side.
int push_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
