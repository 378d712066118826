// blake2b_many.cpp - dispatch for multi-buffer BLAKE2b-256.
//
// Full groups of 8 blocks go to the AVX-512 kernel and of 4 to the AVX2 kernel.
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

#include "cpu/cpu_features.hpp"
#include "blake2b_kernels.hpp"

#include <blake2.h>

#include <cstring>

namespace rdelta::detail {

namespace {

using kernel_fn = void (*)(const std::uint8_t* const*, std::size_t, std::uint8_t*, std::size_t) noexcept;

constexpr std::size_t digest_len = 32;
constexpr std::size_t max_lanes = 8;

#if !defined(__aarch64__)
// Hashes messages msgs[0 .. n-1] (1 <= n <= width) with one call of a `width`-lane
// kernel. Lanes past n re-read the last message, which stays within the input, and
// their digests land in a scratch buffer.
void hash_group(kernel_fn kernel, std::size_t width, const std::uint8_t* const* group, std::size_t len,
                std::size_t n, std::uint8_t* out, std::size_t out_stride) noexcept {
    const std::uint8_t* msgs[max_lanes];
    for (std::size_t k = 0; k < width; ++k) msgs[k] = group[k < n ? k : n - 1];
    if (n == width) {
        kernel(msgs, len, out, out_stride);
        return;
    }
    std::uint8_t scratch[max_lanes * digest_len];
    kernel(msgs, len, scratch, digest_len);
    for (std::size_t k = 0; k < n; ++k) std::memcpy(out + k * out_stride, scratch + k * digest_len, digest_len);
}
#endif

}  // namespace

void blake2b256_one(const std::uint8_t* data, std::size_t len, std::uint8_t out[32]) noexcept {
    // outlen 32 goes into the parameter block: not a truncated BLAKE2b-512.
    blake2b(out, data, nullptr, digest_len, len, 0);
}

void blake2b256_gather(const std::uint8_t* const* msgs, std::size_t len, std::size_t count, std::uint8_t* out,
                       std::size_t out_stride) noexcept {
    std::size_t i = 0;
#if !defined(__aarch64__)  // x86-64 kernels only; levels compare within one ladder
    const isa level = active_isa();
    if (level >= isa::avx512) {
        for (; count - i >= 8; i += 8) hash_group(blake2b256_x8_avx512, 8, msgs + i, len, 8, out + i * out_stride, out_stride);
        if (count - i > 4) {
            hash_group(blake2b256_x8_avx512, 8, msgs + i, len, count - i, out + i * out_stride, out_stride);
            i = count;
        }
    }
    if (level >= isa::avx2) {
        for (; count - i >= 4; i += 4) hash_group(blake2b256_x4_avx2, 4, msgs + i, len, 4, out + i * out_stride, out_stride);
        if (count - i >= 2) {
            hash_group(blake2b256_x4_avx2, 4, msgs + i, len, count - i, out + i * out_stride, out_stride);
            i = count;
        }
    }
#endif
    for (; i < count; ++i) blake2b256_one(msgs[i], len, out + i * out_stride);
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

}  // namespace rdelta::detail
