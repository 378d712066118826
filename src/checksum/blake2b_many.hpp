// blake2b_many.hpp - BLAKE2b-256 of many equal-length blocks, SIMD-dispatched.
//
// BLAKE2b-256 here means BLAKE2b initialised with a 32-byte output length
// (librsync's BLAKE2 strong sum), not truncated BLAKE2b-512. Built for the
// baseline CPU; the multi-buffer kernels (blake2b_kernels.hpp) run only when
// active_isa() allows them.
#pragma once

#include "multi_buffer.hpp"

#include <blake2.h>

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// 32-byte BLAKE2b-256 digests of consecutive blocks (multi_buffer.hpp, blocks_hash).
blocks_hash blake2b256_many;

/// 32-byte BLAKE2b-256 digests of messages anywhere in memory (multi_buffer.hpp,
/// gather_hash).
gather_hash blake2b256_gather;

/// BLAKE2b-256 of the `count` messages msgs[i] of lens[i] bytes each (any length,
/// including 0; anywhere in memory); digest i is written at out + i * out_stride.
/// Messages are hashed in kernel-wide groups in the order given, so a group costs
/// about as much as its longest message: callers gain by passing similar lengths
/// next to each other.
void blake2b256_gather_var(const std::uint8_t* const* msgs, const std::size_t* lens, std::size_t count,
                           std::uint8_t* out, std::size_t out_stride) noexcept;

/// BLAKE2b-256 of 16 messages of one length, fed piece by piece: a signature's
/// blocks larger than a core's cache are hashed 16 at a time from pieces read
/// into it. The 16-lane AVX-512 kernel at that level, libb2 per message below.
class blake2b256_parts {
public:
    static constexpr std::size_t lanes = 16;
    /// A kernel that carries 16 messages' state between calls (blake2b_kernels.hpp).
    using part_kernel = void (*)(std::uint64_t*, const std::uint8_t* const*, std::size_t, std::size_t, std::uint8_t*,
                                 std::size_t) noexcept;
    blake2b256_parts() noexcept;
    /// The next `len` bytes of each message (msgs[i]); not their end, and len is
    /// a multiple of 128.
    void update(const std::uint8_t* const msgs[lanes], std::size_t len) noexcept;
    /// The last `len` bytes of each message; digest i goes to out + i * out_stride.
    void finish(const std::uint8_t* const msgs[lanes], std::size_t len, std::uint8_t* out,
                std::size_t out_stride) noexcept;

private:
    alignas(64) std::uint64_t kernel_state_[128];
    blake2b_state lane_state_[lanes];
    std::size_t done_ = 0;
    part_kernel kernel_;  // null: libb2 per message
};

/// BLAKE2b-256 of one message (libb2).
void blake2b256_one(const std::uint8_t* data, std::size_t len, std::uint8_t out[32]) noexcept;

}  // namespace rdelta::detail
