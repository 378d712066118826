// md4_sse2.cpp - 4-lane MD4 in xmm registers (md4_simd_body.inc over SSE2).
// Compiled with -msse2 (the x86-64 baseline). Everything but the kernel entry has
// internal linkage in namespace md4_sse2, and no STL is included (HACKING.md, "SIMD kernels and dispatch").
#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "md4_kernels.hpp"

namespace rdelta::detail::md4_sse2 {
namespace {

#define MD4_LANES 4
typedef __m128i md4v;

inline md4v v_set1(std::uint32_t x) noexcept {
    return _mm_set1_epi32(static_cast<int>(x));
}
inline md4v v_add(md4v a, md4v b) noexcept {
    return _mm_add_epi32(a, b);
}
inline md4v v_add_f(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return _mm_add_epi32(acc, _mm_xor_si128(d, _mm_and_si128(b, _mm_xor_si128(c, d))));
}
inline md4v v_add_g(md4v acc, md4v b, md4v c, md4v d) noexcept {
    const md4v cd = _mm_and_si128(c, d);
    return _mm_add_epi32(_mm_add_epi32(acc, cd), _mm_and_si128(b, _mm_xor_si128(c, d)));
}
inline md4v v_add_h(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return _mm_add_epi32(acc, _mm_xor_si128(b, _mm_xor_si128(c, d)));
}
#define MD4_ROTL(x, s) _mm_or_si128(_mm_slli_epi32((x), (s)), _mm_srli_epi32((x), 32 - (s)))

inline md4v v_load_rows(const std::uint8_t* const p[], int i, std::size_t off) noexcept {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i] + off));
}
inline md4v v_unpacklo32(md4v a, md4v b) noexcept {
    return _mm_unpacklo_epi32(a, b);
}
inline md4v v_unpackhi32(md4v a, md4v b) noexcept {
    return _mm_unpackhi_epi32(a, b);
}
inline md4v v_unpacklo64(md4v a, md4v b) noexcept {
    return _mm_unpacklo_epi64(a, b);
}
inline md4v v_unpackhi64(md4v a, md4v b) noexcept {
    return _mm_unpackhi_epi64(a, b);
}
inline void v_store(std::uint32_t* dst, md4v v) noexcept {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), v);
}

#include "md4_simd_body.inc"

#undef MD4_ROTL
#undef MD4_LANES

}  // namespace
}  // namespace rdelta::detail::md4_sse2

void rdelta::detail::md4_x4_sse2(const std::uint8_t* const msgs[4], std::size_t len, std::uint8_t* out,
                                 std::size_t out_stride) noexcept {
    md4_sse2::md4_multi(msgs, len, out, out_stride);
}
