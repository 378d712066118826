// restore_delta.hpp - `restore --delta-against SIG IMAGE POINT OUTPUT`: the delta
// from SIG's file to the image as it was at a restore point, never the point itself.
#pragma once

#include "invocation.hpp"

#include <cstdint>

namespace rdelta {
class history;
class in_place_fd;
}  // namespace rdelta

namespace rdelta::cli {

/// Write to req.files[2] ("-" = standard output) the delta from the file SIG
/// (req.delta_against, "-" = standard input, possibly compressed) describes to
/// `image` as it was at point `number` of `h`: made with make_delta_from over
/// open_point()'s reader, in-place safe, with the chunked checksum trailer (so
/// `patch --in-place` verifies its result), compressed as -z/-i/--zstd say. The
/// caller holds the image's lock. Returns the exit status.
int restore_delta(const request& req, const invocation& inv, in_place_fd& image, history& h, std::uint64_t number);

}  // namespace rdelta::cli
