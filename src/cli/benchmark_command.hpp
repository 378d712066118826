// benchmark_command.hpp - `rdelta benchmark`, as `zstd -b` or `cryptsetup
// benchmark`: how fast this build is on this CPU.
#pragma once

#include "invocation.hpp"

namespace rdelta::cli {

/// Print the throughput table (JSON with --json); returns the exit status.
int benchmark_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
