// weak_dispatch.cpp - choose a whole-block weak-sum kernel by active_isa() and n.
//
// Each kernel has a fixed cost per call (a final reduction across lanes, a masked
// tail step, and below one step a copy to a stack buffer), so a wider kernel only
// pays off on longer blocks. The tables list the kernels widest first with the
// shortest block each one is chosen for; a block goes to the first kernel the
// active level allows that is not too short for it, so shorter blocks fall through
// to narrower kernels and finally to the scalar eight-byte loops. The lengths are
// the crossovers measured on Zen 5 (ns per call, bench/bench_weak.cpp rows), rounded
// to a multiple of the kernel's step so no chosen kernel ever takes the buffer path.
#include "weak_dispatch.hpp"

#include "cpu/kernel_table.hpp"
#include "weak_block_sum.hpp"
#include "weak_kernels.hpp"

namespace rdelta::detail {

namespace {

using rabinkarp_fn = std::uint32_t (*)(const std::uint8_t*, std::size_t) noexcept;
using rollsum_fn = void (*)(const std::uint8_t*, std::size_t, std::uint32_t*, std::uint32_t*) noexcept;

// The kernels of this build's ladder (cpu_features.hpp) only.
#if defined(__aarch64__)
// One step (32 bytes) each: not measured on arm64 hardware yet (CI runs these
// kernels under qemu, whose timings say nothing about speed).
constexpr isa_kernel<rabinkarp_fn> rabinkarp_kernels[] = {
    {rabinkarp_block_neon, isa::neon, 32},
};
constexpr isa_kernel<rollsum_fn> rollsum_kernels[] = {
    {rollsum_block_neon, isa::neon, 32},
};

// Below this nothing SIMD is chosen, whatever the level: skip active_isa().
constexpr std::size_t rabinkarp_simd_min = 32;
constexpr std::size_t rollsum_simd_min = 32;
#else
constexpr isa_kernel<rabinkarp_fn> rabinkarp_kernels[] = {
    {rabinkarp_block_avx512, isa::avx512, 256},
    {rabinkarp_block_avx2, isa::avx2, 128},
    {rabinkarp_block_sse2, isa::sse2, 16},
};
constexpr isa_kernel<rollsum_fn> rollsum_kernels[] = {
    {rollsum_block_avx512, isa::avx512, 256},
    {rollsum_block_avx2, isa::avx2, 64},
    {rollsum_block_sse2, isa::sse2, 32},
};

// Below this nothing SIMD is chosen, whatever the level: skip active_isa().
constexpr std::size_t rabinkarp_simd_min = 16;
constexpr std::size_t rollsum_simd_min = 32;
#endif

}  // namespace

std::uint32_t rabinkarp_block_fast(const std::uint8_t* p, std::size_t n) noexcept {
    if (n >= rabinkarp_simd_min)
        if (const auto* k = first_allowed(rabinkarp_kernels, active_isa(), n)) return k->fn(p, n);
    return rabinkarp_block(p, n);
}

void rollsum_block_fast(const std::uint8_t* p, std::size_t n, std::uint32_t& s1, std::uint32_t& s2) noexcept {
    if (n >= rollsum_simd_min)
        if (const auto* k = first_allowed(rollsum_kernels, active_isa(), n)) return k->fn(p, n, &s1, &s2);
    rollsum_block(p, n, s1, s2);
}

}  // namespace rdelta::detail
