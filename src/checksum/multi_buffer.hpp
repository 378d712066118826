// multi_buffer.hpp - the function shapes the multi-buffer hashes (MD4 and
// BLAKE2b-256) share: their SIMD kernels and their dispatched entry points are
// declared with these types, so each shape and its contract are written once.
//
// Kept C-like (types only, no STL, nothing inline) because the kernel headers
// that include it are compiled into ISA-flagged translation units (HACKING.md,
// "SIMD kernels and dispatch").
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// A kernel that hashes exactly as many messages as it has lanes (its name says
/// how many), each `len` bytes long (0 included). Lane i reads only
/// msgs[i][0 .. len), so a message may end right before an unmapped page;
/// pointers need no alignment. Digest i goes to out + i * out_stride.
using lanes_kernel = void(const std::uint8_t* const* msgs, std::size_t len, std::uint8_t* out,
                          std::size_t out_stride) noexcept;

/// As lanes_kernel, with message i lens[i] bytes long; a call costs as much as
/// its longest message.
using lanes_var_kernel = void(const std::uint8_t* const* msgs, const std::size_t* lens, std::uint8_t* out,
                              std::size_t out_stride) noexcept;

/// Digests of `count` consecutive blocks data[i*block_len .. (i+1)*block_len)
/// (any block_len, 0 included); digest i goes to out + i * out_stride. Reads
/// nothing past the last block; picks kernels by active_isa().
using blocks_hash = void(const std::uint8_t* data, std::size_t block_len, std::size_t count, std::uint8_t* out,
                         std::size_t out_stride) noexcept;

/// Digests of the `count` messages msgs[i] of `len` bytes each, anywhere in
/// memory; digest i goes to out + i * out_stride. Picks kernels by active_isa().
using gather_hash = void(const std::uint8_t* const* msgs, std::size_t len, std::size_t count, std::uint8_t* out,
                         std::size_t out_stride) noexcept;

}  // namespace rdelta::detail
