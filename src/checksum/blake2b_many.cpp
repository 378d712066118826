// blake2b_many.cpp - dispatch for multi-buffer BLAKE2b-256.
//
// Full groups of 16 equal-length blocks go to the 16-lane AVX-512 kernel (two
// interleaved groups of 8, blake2b_avx512.cpp says why), then groups of 8 to the
// 8-lane one and of 4 to the AVX2 kernel; messages of different lengths
// (blake2b256_gather_var) follow the same schedule from 8 lanes down with the
// _var kernels, whose call costs as much as its longest lane.
// A remainder of 2..7 blocks still goes to a kernel, with the unused lanes
// repeating the last block: one kernel call costs about as much as one libb2
// call (measured: x8 on 8 blocks ~ x4 on 4 ~ libb2 on 1), so a partly empty
// call is still the cheapest way to hash two or more blocks. The narrowest
// kernel that covers the remainder is used, which also suits CPUs that run
// 512-bit vectors at half rate. A single leftover block, and every block at
// scalar/sse2, goes to libb2. This file is compiled for the baseline CPU and
// only calls the kernels. aarch64 has no BLAKE2b kernel: NEON's two 64-bit lanes
// and its lack of a 64-bit rotate leave too little over libb2 to be worth one,
// so every block there goes to libb2.
#include "blake2b_many.hpp"

#include "blake2b_kernels.hpp"
#include "cpu/cpu_features.hpp"

#include <blake2.h>

#include <cstring>

namespace rdelta::detail {

namespace {

constexpr std::size_t digest_len = 32;
constexpr std::size_t max_lanes = 16;

#if !defined(__aarch64__)
// Hashes messages group[0 .. n-1] (1 <= n <= width) with one call of a `width`-lane
// kernel: the _var kernel with lengths lens[0 .. n-1] when `lens` is given, else
// the equal-length kernel with `len`. Lanes past n repeat the last message, which
// stays within the input, and their digests land in a scratch buffer.
void hash_group(std::size_t width, const std::uint8_t* const* group, const std::size_t* lens, std::size_t len,
                std::size_t n, std::uint8_t* out, std::size_t out_stride) noexcept {
    const std::uint8_t* msgs[max_lanes];
    std::size_t lane_lens[max_lanes];
    for (std::size_t k = 0; k < width; ++k) {
        const std::size_t from = k < n ? k : n - 1;
        msgs[k] = group[from];
        lane_lens[k] = lens ? lens[from] : len;
    }
    std::uint8_t scratch[max_lanes * digest_len];
    std::uint8_t* const dst = n == width ? out : scratch;
    const std::size_t dst_stride = n == width ? out_stride : digest_len;
    if (lens) {
        (width == 8 ? blake2b256_x8_var_avx512 : blake2b256_x4_var_avx2)(msgs, lane_lens, dst, dst_stride);
    } else if (width == 16) {
        blake2b256_x16_avx512(msgs, len, dst, dst_stride);
    } else {
        (width == 8 ? blake2b256_x8_avx512 : blake2b256_x4_avx2)(msgs, len, dst, dst_stride);
    }
    if (n == width) return;
    for (std::size_t k = 0; k < n; ++k) std::memcpy(out + k * out_stride, scratch + k * digest_len, digest_len);
}
#endif

// blake2b256_gather (lens null: every message is `len` bytes) and
// blake2b256_gather_var (message i is lens[i] bytes) share this schedule.
void gather(const std::uint8_t* const* msgs, const std::size_t* lens, std::size_t len, std::size_t count,
            std::uint8_t* out, std::size_t out_stride) noexcept {
    std::size_t i = 0;
#if !defined(__aarch64__)  // x86-64 kernels only; levels compare within one ladder
    const auto group = [&](std::size_t width, std::size_t n) {
        hash_group(width, msgs + i, lens ? lens + i : nullptr, len, n, out + i * out_stride, out_stride);
        i += n;
    };
    const isa level = active_isa();
    if (level >= isa::avx512) {
        if (!lens) {
            while (count - i >= 16) group(16, 16);
            if (count - i > 8) group(16, count - i);  // one 16-lane call costs less than two of 8
        }
        while (count - i >= 8) group(8, 8);
        if (count - i > 4) group(8, count - i);
    }
    if (level >= isa::avx2) {
        while (count - i >= 4) group(4, 4);
        if (count - i >= 2) group(4, count - i);
    }
#endif
    for (; i < count; ++i) blake2b256_one(msgs[i], lens ? lens[i] : len, out + i * out_stride);
}

}  // namespace

void blake2b256_one(const std::uint8_t* data, std::size_t len, std::uint8_t out[32]) noexcept {
    // outlen 32 goes into the parameter block: not a truncated BLAKE2b-512.
    blake2b(out, data, nullptr, digest_len, len, 0);
}

void blake2b256_gather(const std::uint8_t* const* msgs, std::size_t len, std::size_t count, std::uint8_t* out,
                       std::size_t out_stride) noexcept {
    gather(msgs, nullptr, len, count, out, out_stride);
}

void blake2b256_gather_var(const std::uint8_t* const* msgs, const std::size_t* lens, std::size_t count,
                           std::uint8_t* out, std::size_t out_stride) noexcept {
    gather(msgs, lens, 0, count, out, out_stride);
}

void blake2b256_many(const std::uint8_t* data, std::size_t block_len, std::size_t count, std::uint8_t* out,
                     std::size_t out_stride) noexcept {
    constexpr std::size_t batch = 64;  // a multiple of every kernel's width
    const std::uint8_t* msgs[batch];
    for (std::size_t i = 0; i < count; i += batch) {
        const std::size_t n = count - i < batch ? count - i : batch;
        for (std::size_t k = 0; k < n; ++k) msgs[k] = data + (i + k) * block_len;
        blake2b256_gather(msgs, block_len, n, out + i * out_stride, out_stride);
    }
}

blake2b256_parts::blake2b256_parts() noexcept {
#if !defined(__aarch64__)
    kernel_ = active_isa() >= isa::avx512;
#else
    kernel_ = false;
#endif
    if (!kernel_)
        for (auto& lane : lane_state_) blake2b_init(&lane, digest_len);
}

void blake2b256_parts::update(const std::uint8_t* const msgs[lanes], std::size_t len) noexcept {
#if !defined(__aarch64__)
    if (kernel_) {
        blake2b256_x16_part_avx512(kernel_state_, msgs, done_, len, nullptr, 0);
        done_ += len;
        return;
    }
#endif
    for (std::size_t i = 0; i < lanes; ++i) blake2b_update(&lane_state_[i], msgs[i], len);
    done_ += len;
}

void blake2b256_parts::finish(const std::uint8_t* const msgs[lanes], std::size_t len, std::uint8_t* out,
                              std::size_t out_stride) noexcept {
#if !defined(__aarch64__)
    if (kernel_) return blake2b256_x16_part_avx512(kernel_state_, msgs, done_, len, out, out_stride);
#endif
    for (std::size_t i = 0; i < lanes; ++i) {
        blake2b_update(&lane_state_[i], msgs[i], len);
        blake2b_final(&lane_state_[i], out + i * out_stride, digest_len);
    }
}

}  // namespace rdelta::detail
