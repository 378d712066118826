// delta_passes.hpp - a delta that can be read from its start more than once, as an
// in-place patch needs (check pass, apply pass) without holding it in memory.
#pragma once

#include <rdelta/in_place.hpp>

#include <memory>
#include <string>

namespace rdelta::cli {

/// An opener for the delta at `path` ("-" = standard input): a regular file is
/// reopened for each pass; anything else (a pipe) is first copied, as it is, to an
/// unlinked temporary file (O_TMPFILE in $TMPDIR, else /tmp). A compressed delta
/// is decompressed again on each pass.
result<delta_opener> make_delta_opener(const std::string& path);

}  // namespace rdelta::cli
