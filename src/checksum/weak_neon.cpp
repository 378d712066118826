// weak_neon.cpp - whole-block weak sums in NEON q registers (weak_simd_body.inc over
// AArch64 Advanced SIMD, 16 bytes per vector, 32 per step). NEON is part of every
// aarch64 CPU, so no flags are needed, but the unit keeps the per-ISA rules all
// the same: everything but the kernel entries has internal linkage in namespace
// weak_neon, and no STL is included (HACKING.md, "SIMD kernels and dispatch").
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "weak_kernels.hpp"

#if defined(__AARCH64EB__)
#error "weak_neon.cpp assumes little-endian lanes; meson builds it for little-endian aarch64 only"
#endif

namespace rdelta::detail::weak_neon {
namespace {

#define WEAK_W 16
#define WEAK_LOG2_W 4
#define WEAK_HAVE_MULLO 1
typedef uint32x4_t wv;

inline wv v_zero() noexcept {
    return vdupq_n_u32(0);
}
inline wv v_set1(std::uint32_t x) noexcept {
    return vdupq_n_u32(x);
}
// Byte loads (LD1 {v.16b}): no alignment assumed, unlike a uint32_t* cast.
inline wv v_load(const std::uint8_t* p) noexcept {
    return vreinterpretq_u32_u8(vld1q_u8(p));
}
inline wv v_and(wv a, wv b) noexcept {
    return vandq_u32(a, b);
}
inline wv v_add(wv a, wv b) noexcept {
    return vaddq_u32(a, b);
}
inline wv v_mullo(wv a, wv b) noexcept {
    return vmulq_u32(a, b);
}
#define WEAK_SRLI(x, s) vshrq_n_u32((x), (s))
#define WEAK_SLLI(x, s) vshlq_n_u32((x), (s))
// No psadbw: two pairwise widening adds leave each 4-byte group's sum in its 32-bit
// lane. The body only adds v_sad results lane-wise and totals them (v_hsum), so the
// group size does not change any result.
inline wv v_sad(wv x) noexcept {
    return vpaddlq_u16(vpaddlq_u8(vreinterpretq_u8_u32(x)));
}
// Widening multiply-accumulate of both vectors by the weights 16..1 in 16-bit lanes:
// each lane ends at most 2 * 255 * (16 + 8) = 12240, so the halves are added before
// the one pairwise widening add to 32 bits.
inline wv v_madd2(wv x, wv y) noexcept {
    const uint8x16_t w = {16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    const uint8x16_t xb = vreinterpretq_u8_u32(x), yb = vreinterpretq_u8_u32(y);
    const uint16x8_t lo = vmlal_u8(vmull_u8(vget_low_u8(xb), vget_low_u8(w)), vget_low_u8(yb), vget_low_u8(w));
    const uint16x8_t hi = vmlal_high_u8(vmull_high_u8(xb, w), yb, w);
    return vpaddlq_u16(vaddq_u16(lo, hi));
}
inline std::uint32_t v_hsum(wv v) noexcept {
    return vaddvq_u32(v);
}

#include "weak_simd_body.inc"

#undef WEAK_SRLI
#undef WEAK_SLLI
#undef WEAK_HAVE_MULLO
#undef WEAK_LOG2_W
#undef WEAK_W

}  // namespace
}  // namespace rdelta::detail::weak_neon

std::uint32_t rdelta::detail::rabinkarp_block_neon(const std::uint8_t* p, std::size_t n) noexcept {
    return weak_neon::rk_block(p, n);
}

void rdelta::detail::rollsum_block_neon(const std::uint8_t* p, std::size_t n, std::uint32_t* s1,
                                        std::uint32_t* s2) noexcept {
    weak_neon::rs_block(p, n, s1, s2);
}
