// weak_kernels.hpp - SIMD kernels for the weak sums of whole blocks.
//
// Internal to the library: callers go through rabinkarp_block_fast() and
// rollsum_block_fast() (weak_dispatch.hpp), which pick a kernel by active_isa().
// Each kernel lives in its own translation unit compiled with that ISA's -m flags,
// so this header stays C-like on purpose: declarations only, no inline code and
// no STL (HACKING.md, "SIMD kernels and dispatch").
//
// Every kernel accepts any n (0 included) and any alignment, and reads only
// p[0, n): a block may end right before an unmapped page. Results equal the scalar
// references bit for bit: rabinkarp_of() (rabinkarp.hpp) for the RabinKarp kernels,
// and the s1/s2 halves of rollsum_block() (weak_block_sum.hpp), +31 offsets
// included, for the rollsum kernels. Blocks shorter than one step (two vectors)
// are correct but slow (copied to a stack buffer first); weak_dispatch.cpp sends
// them to a narrower kernel or the scalar loops.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// xmm registers; SSE2 is every x86-64 CPU. RabinKarp has no pmulld here and
/// builds its products from pmaddwd on 16-bit halves of the powers.
std::uint32_t rabinkarp_block_sse2(const std::uint8_t* p, std::size_t n) noexcept;
void rollsum_block_sse2(const std::uint8_t* p, std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept;

/// ymm registers, 64 bytes per step; only when active_isa() >= isa::avx2.
std::uint32_t rabinkarp_block_avx2(const std::uint8_t* p, std::size_t n) noexcept;
void rollsum_block_avx2(const std::uint8_t* p, std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept;

/// zmm registers, 128 bytes per step; only when active_isa() >= isa::avx512.
std::uint32_t rabinkarp_block_avx512(const std::uint8_t* p, std::size_t n) noexcept;
void rollsum_block_avx512(const std::uint8_t* p, std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept;

/// NEON q registers, 32 bytes per step; aarch64 builds only (NEON is baseline
/// there), when active_isa() == isa::neon.
std::uint32_t rabinkarp_block_neon(const std::uint8_t* p, std::size_t n) noexcept;
void rollsum_block_neon(const std::uint8_t* p, std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept;

}  // namespace rdelta::detail
