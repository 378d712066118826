// lane_schedule.hpp - how many messages go to which multi-buffer kernel: the one
// scheduler of the MD4 and BLAKE2b dispatchers (md4_many.cpp, blake2b_many.cpp).
//
// The widest kernel the level allows takes every whole group (BLAKE3's hash_many
// shape). Of the messages left, at least `min_padded` go to one call of the
// narrowest allowed kernel that holds them all, its spare lanes repeating the
// last message (valid memory) and their digests discarded; fewer are hashed one
// at a time. min_padded is where one partly empty call costs less than that many
// single hashes: each hash's dispatcher says what it measured.
#pragma once

#include "cpu/kernel_table.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rdelta::detail {

inline constexpr std::size_t max_kernel_lanes = 16;

/// Hashes messages 0..count-1 into out (digest i at out + i * out_stride,
/// digest_len <= 32 bytes each) with the kernels of `table`. group(kernel,
/// lane_msg, dst, dst_stride) runs one call of `kernel` on messages
/// lane_msg[0 .. kernel.size) (indices into the caller's messages), writing
/// digest j at dst + j * dst_stride; single(i) hashes message i alone into out.
template <class Table, class Group, class Single>
void schedule_lanes(const Table& table, isa level, std::size_t count, std::size_t min_padded, std::size_t digest_len,
                    std::uint8_t* out, std::size_t out_stride, Group group, Single single) noexcept {
    std::size_t lane_msg[max_kernel_lanes];
    std::size_t i = 0;
    const auto* widest = first_allowed(table, level);
    if (widest != nullptr) {
        for (; count - i >= widest->size; i += widest->size) {
            for (std::size_t k = 0; k < widest->size; ++k) lane_msg[k] = i + k;
            group(*widest, lane_msg, out + i * out_stride, out_stride);
        }
        const std::size_t left = count - i;
        if (left > 0 && left >= min_padded) {
            const auto* pick = narrowest_allowed(table, level, left);
            for (std::size_t k = 0; k < pick->size; ++k) lane_msg[k] = i + (k < left ? k : left - 1);
            std::uint8_t scratch[max_kernel_lanes * 32];
            group(*pick, lane_msg, scratch, digest_len);
            for (std::size_t k = 0; k < left; ++k)
                std::memcpy(out + (i + k) * out_stride, scratch + k * digest_len, digest_len);
            return;
        }
    }
    for (; i < count; ++i) single(i);
}

/// Consecutive blocks through a gather entry point (md4_gather,
/// blake2b256_gather): `count` blocks of block_len bytes at data, digest i at
/// out + i * out_stride, in batches of pointers that are a multiple of every
/// kernel's width.
template <class Gather>
void gather_consecutive(const std::uint8_t* data, std::size_t block_len, std::size_t count, std::uint8_t* out,
                        std::size_t out_stride, Gather gather) noexcept {
    constexpr std::size_t batch = 4 * max_kernel_lanes;
    const std::uint8_t* msgs[batch];
    for (std::size_t i = 0; i < count; i += batch) {
        const std::size_t n = count - i < batch ? count - i : batch;
        for (std::size_t k = 0; k < n; ++k) msgs[k] = data + (i + k) * block_len;
        gather(msgs, block_len, n, out + i * out_stride, out_stride);
    }
}

}  // namespace rdelta::detail
