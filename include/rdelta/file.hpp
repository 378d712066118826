// rdelta/file.hpp - the POSIX file layer: inputs (input_file.hpp), outputs
// published safely (output_file.hpp), a file patched in place (in_place_fd.hpp)
// and process set-up (process.hpp).
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/in_place_fd.hpp>
#include <rdelta/input_file.hpp>
#include <rdelta/output_file.hpp>
#include <rdelta/process.hpp>
