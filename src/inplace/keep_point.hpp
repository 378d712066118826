// keep_point.hpp - what an in-place patch that keeps history records about the
// image it replaces, gathered before its first write (the old root costs a read of
// the image's data only when no manifest gives it).
#pragma once

#include "basis_check.hpp"
#include "point_format.hpp"

#include <rdelta/in_place.hpp>

#include <array>
#include <span>

namespace rdelta::detail {

/// The footer of the point the patch will keep: the image's length, root and
/// modification time now, the delta's output length and root (from its chunked
/// trailer; zeros without one) and digest. `basis` gives the root when the image's
/// manifest did; otherwise the image is hashed (holes are not read).
result<point_footer> start_point(in_place_file& file, std::span<const std::uint8_t> trailer, const basis_finding& basis,
                                 std::uint64_t new_size, const std::array<std::uint8_t, 16>& delta_digest);

/// The chunk root of `file` as it is now, at `chunk_size` (holes are not read).
result<chunk_hash> file_root(in_place_file& file, std::uint32_t chunk_size);

}  // namespace rdelta::detail
