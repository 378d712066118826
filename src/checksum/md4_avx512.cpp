// md4_avx512.cpp - 16-lane MD4 in zmm registers (md4_simd_body.inc over AVX-512).
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx2 -mbmi2; internal linkage
// and no STL as in md4_avx2.cpp. AVX-512 has a native rotate (vprold) and
// three-input logic (vpternlogd), so each step is one logic op, two adds, a rotate.
#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "md4_kernels.hpp"

namespace rdelta::detail::md4_avx512 {
namespace {

#define MD4_LANES 16
typedef __m512i md4v;

// vpternlogd immediates: the truth table of f(b, c, d), bit index b*4 + c*2 + d.
#define MD4_TERN_F 0xca  // b ? c : d
#define MD4_TERN_G 0xe8  // majority
#define MD4_TERN_H 0x96  // b ^ c ^ d

inline md4v v_set1(std::uint32_t x) noexcept {
    return _mm512_set1_epi32(static_cast<int>(x));
}
inline md4v v_add(md4v a, md4v b) noexcept {
    return _mm512_add_epi32(a, b);
}
inline md4v v_add_f(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return _mm512_add_epi32(acc, _mm512_ternarylogic_epi32(b, c, d, MD4_TERN_F));
}
inline md4v v_add_g(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return _mm512_add_epi32(acc, _mm512_ternarylogic_epi32(b, c, d, MD4_TERN_G));
}
inline md4v v_add_h(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return _mm512_add_epi32(acc, _mm512_ternarylogic_epi32(b, c, d, MD4_TERN_H));
}
#define MD4_ROTL(x, s) _mm512_rol_epi32((x), (s))

// Lanes i, i+4, i+8, i+12: a 128-bit load plus three vinserti32x4 from memory.
inline md4v v_load_rows(const std::uint8_t* const p[], int i, std::size_t off) noexcept {
    md4v v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i] + off)));
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i + 4] + off)), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i + 8] + off)), 2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i + 12] + off)), 3);
    return v;
}
inline md4v v_unpacklo32(md4v a, md4v b) noexcept {
    return _mm512_unpacklo_epi32(a, b);
}
inline md4v v_unpackhi32(md4v a, md4v b) noexcept {
    return _mm512_unpackhi_epi32(a, b);
}
inline md4v v_unpacklo64(md4v a, md4v b) noexcept {
    return _mm512_unpacklo_epi64(a, b);
}
inline md4v v_unpackhi64(md4v a, md4v b) noexcept {
    return _mm512_unpackhi_epi64(a, b);
}
inline void v_store(std::uint32_t* dst, md4v v) noexcept {
    _mm512_storeu_si512(dst, v);
}

#include "md4_simd_body.inc"

#undef MD4_TERN_F
#undef MD4_TERN_G
#undef MD4_TERN_H
#undef MD4_ROTL
#undef MD4_LANES

}  // namespace
}  // namespace rdelta::detail::md4_avx512

void rdelta::detail::md4_x16_avx512(const std::uint8_t* const msgs[16], std::size_t len, std::uint8_t* out,
                                    std::size_t out_stride) noexcept {
    md4_avx512::md4_multi(msgs, len, out, out_stride);
}
