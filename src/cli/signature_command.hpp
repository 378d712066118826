// signature_command.hpp - `signature [BASIS [SIGNATURE]]`.
#pragma once

#include "invocation.hpp"

namespace rdelta::cli {

/// Write the signature of BASIS (standard input by default) to SIGNATURE (standard
/// output), compressed as -z, -i or --zstd say; returns the exit status.
int signature_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
