// md4_many.cpp - dispatch of many-block MD4 over the multi-buffer kernels.
//
// The kernels are latency-bound (each MD4 step waits for the previous one), so a
// call costs about the same whatever its width: on the reference machine (Zen 5)
// one x4, x8 or x16 call takes as long as 1.9-2.6 scalar hashes of the same block.
// Hence: the widest kernel the active level allows takes every whole group (BLAKE3's
// hash_many shape); of the 0..W-1 blocks left, 1-2 go to the scalar kernel and
// 3 or more to one call of the narrowest kernel that holds them all, its spare
// lanes re-reading the last block (valid memory) and their digests discarded.
// On aarch64 the table holds the one NEON x4 kernel; the same split is kept, as its
// costs have not been measured on arm64 hardware (CI runs it under qemu, whose
// timings say nothing about speed).
#include "md4_many.hpp"

#include "cpu/cpu_features.hpp"
#include "md4_kernels.hpp"

#include <cstring>

namespace rdelta::detail {

namespace {

using md4_multi_fn = void (*)(const std::uint8_t* const*, std::size_t, std::uint8_t*, std::size_t) noexcept;

struct md4_kernel {
    md4_multi_fn fn;
    std::size_t lanes;
    isa needs;
};

// Widest first; the kernels of this build's ladder (cpu_features.hpp) only.
constexpr md4_kernel kernels[] = {
#if defined(__aarch64__)
    {md4_x4_neon, 4, isa::neon},
#else
    {md4_x16_avx512, 16, isa::avx512},
    {md4_x8_avx2, 8, isa::avx2},
    {md4_x4_sse2, 4, isa::sse2},
#endif
};
constexpr std::size_t max_lanes = 16;

// Fewer blocks than this left over go to the scalar kernel one by one.
constexpr std::size_t min_padded_group = 3;

}  // namespace

void md4_gather(const std::uint8_t* const* in, std::size_t len, std::size_t count, std::uint8_t* out,
                std::size_t out_stride) noexcept {
    const isa level = active_isa();
    const md4_kernel* widest = nullptr;
    for (const md4_kernel& k : kernels)
        if (level >= k.needs) {
            widest = &k;
            break;
        }
    const std::uint8_t* msgs[max_lanes];
    std::size_t i = 0;
    if (widest != nullptr) {
        for (; count - i >= widest->lanes; i += widest->lanes) {
            for (std::size_t k = 0; k < widest->lanes; ++k) msgs[k] = in[i + k];
            widest->fn(msgs, len, out + i * out_stride, out_stride);
        }
    }
    const std::size_t left = count - i;
    if (widest != nullptr && left >= min_padded_group) {
        const md4_kernel* pick = widest;
        for (const md4_kernel& k : kernels)
            if (level >= k.needs && k.lanes >= left) pick = &k;  // ends at the narrowest fit
        for (std::size_t k = 0; k < pick->lanes; ++k) msgs[k] = in[i + (k < left ? k : left - 1)];
        std::uint8_t digests[max_lanes * 16];
        pick->fn(msgs, len, digests, 16);
        for (std::size_t k = 0; k < left; ++k) std::memcpy(out + (i + k) * out_stride, digests + 16 * k, 16);
        return;
    }
    for (; i < count; ++i) md4_scalar(in[i], len, out + i * out_stride);
}

void md4_many(const std::uint8_t* data, std::size_t block_len, std::size_t count, std::uint8_t* out,
              std::size_t out_stride) noexcept {
    constexpr std::size_t batch = 64;  // a multiple of every kernel's width
    const std::uint8_t* msgs[batch];
    for (std::size_t i = 0; i < count; i += batch) {
        const std::size_t n = count - i < batch ? count - i : batch;
        for (std::size_t k = 0; k < n; ++k) msgs[k] = data + (i + k) * block_len;
        md4_gather(msgs, block_len, n, out + i * out_stride, out_stride);
    }
}

void md4_one(const std::uint8_t* data, std::size_t len, std::uint8_t out[16]) noexcept {
    md4_scalar(data, len, out);
}

}  // namespace rdelta::detail
