// strong_sum.hpp - MD4 and BLAKE2b-256 block digests behind one interface.
//
// Full digests are computed (16 bytes for MD4, 32 for BLAKE2b-256); callers keep
// the leading strong_len bytes. strong_sum_many() hashes many equal-length blocks
// at once, the entry point for multi-buffer SIMD kernels and threads.
#pragma once

#include <rdelta/format.hpp>

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

inline constexpr std::size_t digest_stride = 32;

/// Full digest of one block into out[0..max_strong_len(kind)).
void strong_sum(strong_kind kind, const std::uint8_t* data, std::size_t len, std::uint8_t* out) noexcept;

/// Digests of `count` consecutive blocks of `block_len` bytes; digest i is written at
/// out + i * digest_stride.
void strong_sum_many(strong_kind kind, const std::uint8_t* data, std::size_t block_len, std::size_t count,
                     std::uint8_t* out) noexcept;

/// How many equal-length blocks strong_sum_gather() hashes in one multi-buffer
/// call at the active ISA level: a batch of candidates worth collecting.
std::size_t strong_sum_lanes(strong_kind kind) noexcept;

/// Digests of `count` blocks of `len` bytes at msgs[i] (anywhere in memory), in
/// one multi-buffer pass; digest i is written at out + i * digest_stride.
void strong_sum_gather(strong_kind kind, const std::uint8_t* const* msgs, std::size_t len, std::size_t count,
                       std::uint8_t* out) noexcept;

/// Digests of `count` messages msgs[i] of lens[i] bytes each; digest i is written
/// at out + i * digest_stride. BLAKE2b runs the multi-buffer kernels; MD4 hashes
/// one message at a time.
void strong_sum_gather_var(strong_kind kind, const std::uint8_t* const* msgs, const std::size_t* lens,
                           std::size_t count, std::uint8_t* out) noexcept;

}  // namespace rdelta::detail
