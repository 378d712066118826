// window_skip.hpp - rolling the weak sum past windows the prefilter rejects, on
// the widest kernel the CPU has (window_skip_kernels.hpp), and the scalar
// reference those kernels are tested against.
#pragma once

#include "checksum/rabinkarp.hpp"
#include "checksum/rollsum.hpp"
#include "prefilter.hpp"

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// Rolls w (the state of the window at p, w.count bytes long, which the caller has
/// tested) over the windows after p, a whole group at a time while the group lies
/// before limit, and stops at the first window whose key passes the prefilter f:
/// returns its position, w its state. With none, returns the last window tested,
/// w its state, where less than a group is left before limit. The caller tells
/// them apart by testing the window returned. Below AVX2 there is no kernel:
/// returns p, w unchanged, and the caller's scalar loop does the work. The caller
/// guarantees that d[limit - 1 + w.count] exists.
std::size_t skip_rejected(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                          rabinkarp& w) noexcept;
std::size_t skip_rejected(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                          rollsum& w) noexcept;

/// The kernels' reference: the same, one window at a time, in groups of `lanes`.
std::size_t skip_rejected_scalar(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                 std::size_t lanes, rabinkarp& w) noexcept;
std::size_t skip_rejected_scalar(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                 std::size_t lanes, rollsum& w) noexcept;

}  // namespace rdelta::detail
