// md4_many.cpp - dispatch of many-block MD4 over the multi-buffer kernels.
//
// The kernels are latency-bound (each MD4 step waits for the previous one), so a
// call costs about the same whatever its width: on the reference machine (Zen 5)
// one x4, x8 or x16 call takes as long as 1.9-2.6 scalar hashes of the same block.
// Hence lane_schedule.hpp's split with min_padded 3: 1-2 blocks left over go to
// the scalar kernel, 3 or more to one padded call.
// On aarch64 the table holds the one NEON x4 kernel; the same split is kept, as its
// costs have not been measured on arm64 hardware (CI runs it under qemu, whose
// timings say nothing about speed).
#include "md4_many.hpp"

#include "cpu/kernel_table.hpp"
#include "lane_schedule.hpp"
#include "md4_kernels.hpp"

namespace rdelta::detail {

namespace {

// Widest first; the kernels of this build's ladder (cpu_features.hpp) only.
constexpr isa_kernel<lanes_kernel*> kernels[] = {
#if defined(__aarch64__)
    {md4_x4_neon, isa::neon, 4},
#else
    {md4_x16_avx512, isa::avx512, 16},
    {md4_x8_avx2, isa::avx2, 8},
    {md4_x4_sse2, isa::sse2, 4},
#endif
};

constexpr std::size_t md4_min_padded = 3;  // blocks left over that one padded call is worth

}  // namespace

void md4_gather(const std::uint8_t* const* in, std::size_t len, std::size_t count, std::uint8_t* out,
                std::size_t out_stride) noexcept {
    schedule_lanes(
        kernels, active_isa(), count, md4_min_padded, 16, out, out_stride,
        [&](const isa_kernel<lanes_kernel*>& k, const std::size_t* lane_msg, std::uint8_t* dst, std::size_t stride) {
            const std::uint8_t* msgs[max_kernel_lanes];
            for (std::size_t j = 0; j < k.size; ++j) msgs[j] = in[lane_msg[j]];
            k.fn(msgs, len, dst, stride);
        },
        [&](std::size_t i) { md4_scalar(in[i], len, out + i * out_stride); });
}

void md4_many(const std::uint8_t* data, std::size_t block_len, std::size_t count, std::uint8_t* out,
              std::size_t out_stride) noexcept {
    gather_consecutive(data, block_len, count, out, out_stride, md4_gather);
}

void md4_one(const std::uint8_t* data, std::size_t len, std::uint8_t out[16]) noexcept {
    md4_scalar(data, len, out);
}

}  // namespace rdelta::detail
