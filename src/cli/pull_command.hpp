// pull_command.hpp - `pull [--at POINT] [USER@]HOST:PATH LOCAL`: the remote image,
// or one of its restore points, brought back onto LOCAL over ssh.
#pragma once

#include "invocation.hpp"

namespace rdelta::cli {

int pull_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
