// blake2b_many.cpp - dispatch for multi-buffer BLAKE2b-256.
//
// Equal-length blocks go to the 16-lane AVX-512 kernel (two interleaved groups
// of 8, blake2b_avx512.cpp says why), the 8-lane one and the 4-lane AVX2 one;
// messages of different lengths (blake2b256_gather_var) to the 8- and 4-lane
// _var kernels, whose call costs as much as its longest lane. Both follow
// lane_schedule.hpp with min_padded 2: one kernel call costs about as much as
// one libb2 call (measured: x8 on 8 blocks ~ x4 on 4 ~ libb2 on 1), so a partly
// empty call is still the cheapest way to hash two or more blocks, and the
// narrowest kernel that covers them also suits CPUs that run 512-bit vectors at
// half rate. A single leftover block, and every block at scalar/sse2, goes to
// libb2. This file is compiled for the baseline CPU and only calls the kernels.
// aarch64 has no BLAKE2b kernel: NEON's two 64-bit lanes and its lack of a
// 64-bit rotate leave too little over libb2 to be worth one, so every block
// there goes to libb2.
#include "blake2b_many.hpp"

#include "blake2b_kernels.hpp"
#include "cpu/kernel_table.hpp"
#include "lane_schedule.hpp"

#include <blake2.h>

#include <array>

namespace rdelta::detail {

namespace {

constexpr std::size_t digest_len = 32;
constexpr std::size_t blake2b_min_padded = 2;  // blocks left over that one padded call is worth

using equal_fn = lanes_kernel*;
using var_fn = lanes_var_kernel*;
using part_fn = blake2b256_parts::part_kernel;

// Widest first; the kernels of this build's ladder (cpu_features.hpp) only.
#if defined(__aarch64__)
constexpr std::array<isa_kernel<equal_fn>, 0> equal_kernels{};
constexpr std::array<isa_kernel<var_fn>, 0> var_kernels{};
constexpr std::array<isa_kernel<part_fn>, 0> part_kernels{};
#else
constexpr isa_kernel<equal_fn> equal_kernels[] = {
    {blake2b256_x16_avx512, isa::avx512, 16},
    {blake2b256_x8_avx512, isa::avx512, 8},
    {blake2b256_x4_avx2, isa::avx2, 4},
};
constexpr isa_kernel<var_fn> var_kernels[] = {
    {blake2b256_x8_var_avx512, isa::avx512, 8},
    {blake2b256_x4_var_avx2, isa::avx2, 4},
};
constexpr isa_kernel<part_fn> part_kernels[] = {
    {blake2b256_x16_part_avx512, isa::avx512, 16},
};
#endif

}  // namespace

void blake2b256_one(const std::uint8_t* data, std::size_t len, std::uint8_t out[32]) noexcept {
    // outlen 32 goes into the parameter block: not a truncated BLAKE2b-512.
    blake2b(out, data, nullptr, digest_len, len, 0);
}

void blake2b256_gather(const std::uint8_t* const* msgs, std::size_t len, std::size_t count, std::uint8_t* out,
                       std::size_t out_stride) noexcept {
    schedule_lanes(
        equal_kernels, active_isa(), count, blake2b_min_padded, digest_len, out, out_stride,
        [&](const isa_kernel<equal_fn>& k, const std::size_t* lane_msg, std::uint8_t* dst, std::size_t stride) {
            const std::uint8_t* lanes[max_kernel_lanes];
            for (std::size_t j = 0; j < k.size; ++j) lanes[j] = msgs[lane_msg[j]];
            k.fn(lanes, len, dst, stride);
        },
        [&](std::size_t i) { blake2b256_one(msgs[i], len, out + i * out_stride); });
}

void blake2b256_gather_var(const std::uint8_t* const* msgs, const std::size_t* lens, std::size_t count,
                           std::uint8_t* out, std::size_t out_stride) noexcept {
    schedule_lanes(
        var_kernels, active_isa(), count, blake2b_min_padded, digest_len, out, out_stride,
        [&](const isa_kernel<var_fn>& k, const std::size_t* lane_msg, std::uint8_t* dst, std::size_t stride) {
            const std::uint8_t* lanes[max_kernel_lanes];
            std::size_t lane_lens[max_kernel_lanes];
            for (std::size_t j = 0; j < k.size; ++j) lanes[j] = msgs[lane_msg[j]], lane_lens[j] = lens[lane_msg[j]];
            k.fn(lanes, lane_lens, dst, stride);
        },
        [&](std::size_t i) { blake2b256_one(msgs[i], lens[i], out + i * out_stride); });
}

void blake2b256_many(const std::uint8_t* data, std::size_t block_len, std::size_t count, std::uint8_t* out,
                     std::size_t out_stride) noexcept {
    gather_consecutive(data, block_len, count, out, out_stride, blake2b256_gather);
}

blake2b256_parts::blake2b256_parts() noexcept {
    const auto* k = first_allowed(part_kernels, active_isa());
    kernel_ = k ? k->fn : nullptr;
    if (!kernel_)
        for (auto& lane : lane_state_) blake2b_init(&lane, digest_len);
}

void blake2b256_parts::update(const std::uint8_t* const msgs[lanes], std::size_t len) noexcept {
    if (kernel_) {
        kernel_(kernel_state_, msgs, done_, len, nullptr, 0);
    } else {
        for (std::size_t i = 0; i < lanes; ++i) blake2b_update(&lane_state_[i], msgs[i], len);
    }
    done_ += len;
}

void blake2b256_parts::finish(const std::uint8_t* const msgs[lanes], std::size_t len, std::uint8_t* out,
                              std::size_t out_stride) noexcept {
    if (kernel_) return kernel_(kernel_state_, msgs, done_, len, out, out_stride);
    for (std::size_t i = 0; i < lanes; ++i) {
        blake2b_update(&lane_state_[i], msgs[i], len);
        blake2b_final(&lane_state_[i], out + i * out_stride, digest_len);
    }
}

}  // namespace rdelta::detail
