// window_skip_kernels.hpp - SIMD kernels that roll the weak sum over windows the
// prefilter rejects, a group of 8 or 16 windows at a time.
//
// Internal: window_search goes through skip_rejected() (window_skip.hpp), which
// picks a kernel by active_isa(). Each kernel lives in its own translation unit
// compiled with that ISA's -m flags, so this header is C-like: declarations only.
//
// Every kernel takes the window at p, which the caller has tested (its weak state
// in *hash or *s1, *s2; windows are n bytes long), and tests the windows after it,
// a whole group of `lanes` windows at a time while the group lies before `limit`.
// It returns the first window whose weak key (weak_key<Kind>) passes the prefilter,
// with that window's state; or, when none does, the last window it tested (or p if
// no group fit: limit - result <= lanes), with its state. The caller tells the two
// apart by testing the window returned. It reads d[p, r + n) for the result r;
// the caller guarantees d[limit - 1 + n] exists. The results equal
// skip_rejected_scalar().
#pragma once

#include "prefilter.hpp"

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// RabinKarp windows; mult_pow = M^n (rabinkarp::mult_pow).
using rabinkarp_skip_fn = std::size_t (*)(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                          std::size_t n, std::uint32_t mult_pow, std::uint32_t* hash) noexcept;
/// Rollsum windows.
using rollsum_skip_fn = std::size_t (*)(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                        std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept;

/// ymm registers, 8 windows a group; only when active_isa() >= isa::avx2.
std::size_t rabinkarp_skip_avx2(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                std::size_t n, std::uint32_t mult_pow, std::uint32_t* hash) noexcept;
std::size_t rollsum_skip_avx2(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit, std::size_t n,
                              std::uint32_t* s1, std::uint32_t* s2) noexcept;
constexpr std::size_t skip_lanes_avx2 = 8;

/// zmm registers, 16 windows a group; only when active_isa() >= isa::avx512.
std::size_t rabinkarp_skip_avx512(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                  std::size_t n, std::uint32_t mult_pow, std::uint32_t* hash) noexcept;
std::size_t rollsum_skip_avx512(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept;
constexpr std::size_t skip_lanes_avx512 = 16;

}  // namespace rdelta::detail
