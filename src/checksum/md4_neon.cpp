// md4_neon.cpp - 4-lane MD4 in NEON q registers (md4_simd_body.inc over AArch64
// Advanced SIMD). NEON is part of every aarch64 CPU, so no flags are needed, but
// the unit keeps the per-ISA rules all the same: everything but the kernel entry
// has internal linkage in namespace md4_neon, and no STL is included (HACKING.md, "SIMD kernels and dispatch").
// A bit select (BSL) computes F in one instruction and, on c ^ d, the majority G;
// a rotate is a shift left plus a shift-right-and-insert (SRI).
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "md4_kernels.hpp"

#if defined(__AARCH64EB__)
#error "md4_neon.cpp assumes little-endian lanes; meson builds it for little-endian aarch64 only"
#endif

namespace rdelta::detail::md4_neon {
namespace {

#define MD4_LANES 4
#define MD4_VREG "w"
typedef uint32x4_t md4v;

inline md4v v_set1(std::uint32_t x) noexcept {
    return vdupq_n_u32(x);
}
inline md4v v_add(md4v a, md4v b) noexcept {
    return vaddq_u32(a, b);
}
// F = b ? c : d, bit by bit: exactly BSL with b as the mask.
inline md4v v_add_f(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return vaddq_u32(acc, vbslq_u32(b, c, d));
}
// Majority: where c and d differ b decides, where they agree c is the answer.
inline md4v v_add_g(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return vaddq_u32(acc, vbslq_u32(veorq_u32(c, d), b, c));
}
inline md4v v_add_h(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return vaddq_u32(acc, veorq_u32(b, veorq_u32(c, d)));
}
// (x << s) keeps its top 32 - s bits; SRI inserts x >> (32 - s) below them.
#define MD4_ROTL(x, s) vsriq_n_u32(vshlq_n_u32((x), (s)), (x), 32 - (s))

// Byte loads (LD1 {v.16b}): no alignment assumed, unlike a uint32_t* cast.
inline md4v v_load_rows(const std::uint8_t* const p[], int i, std::size_t off) noexcept {
    return vreinterpretq_u32_u8(vld1q_u8(p[i] + off));
}
inline md4v v_unpacklo32(md4v a, md4v b) noexcept {
    return vzip1q_u32(a, b);
}
inline md4v v_unpackhi32(md4v a, md4v b) noexcept {
    return vzip2q_u32(a, b);
}
inline md4v v_unpacklo64(md4v a, md4v b) noexcept {
    return vreinterpretq_u32_u64(vzip1q_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b)));
}
inline md4v v_unpackhi64(md4v a, md4v b) noexcept {
    return vreinterpretq_u32_u64(vzip2q_u64(vreinterpretq_u64_u32(a), vreinterpretq_u64_u32(b)));
}
inline void v_store(std::uint32_t* dst, md4v v) noexcept {
    vst1q_u32(dst, v);
}

#include "md4_simd_body.inc"

#undef MD4_ROTL
#undef MD4_LANES

}  // namespace
}  // namespace rdelta::detail::md4_neon

void rdelta::detail::md4_x4_neon(const std::uint8_t* const msgs[4], std::size_t len, std::uint8_t* out,
                                 std::size_t out_stride) noexcept {
    md4_neon::md4_multi(msgs, len, out, out_stride);
}
