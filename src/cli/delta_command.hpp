// delta_command.hpp - `delta SIGNATURE [NEWFILE [DELTA]]`.
#pragma once

#include "invocation.hpp"

namespace rdelta::cli {

/// Write the delta from SIGNATURE's file to NEWFILE (standard input by default)
/// into DELTA (standard output); returns the exit status.
int delta_command(const request& req, const invocation& inv);

}  // namespace rdelta::cli
