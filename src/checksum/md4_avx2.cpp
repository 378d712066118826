// md4_avx2.cpp - 8-lane MD4 in ymm registers (md4_simd_body.inc over AVX2).
// Compiled with -mavx2 -mbmi2: everything here but the kernel entry has internal
// linkage in namespace md4_avx2 and no STL is included, so no AVX2-compiled copy
// of a shared inline function can leak into baseline code (HACKING.md, "SIMD kernels and dispatch").
#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "md4_kernels.hpp"

namespace rdelta::detail::md4_avx2 {
namespace {

#define MD4_LANES 8
typedef __m256i md4v;

inline md4v v_set1(std::uint32_t x) noexcept {
    return _mm256_set1_epi32(static_cast<int>(x));
}
inline md4v v_add(md4v a, md4v b) noexcept {
    return _mm256_add_epi32(a, b);
}
inline md4v v_add_f(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return _mm256_add_epi32(acc, _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d))));
}
inline md4v v_add_g(md4v acc, md4v b, md4v c, md4v d) noexcept {
    const md4v cd = _mm256_and_si256(c, d);
    return _mm256_add_epi32(_mm256_add_epi32(acc, cd), _mm256_and_si256(b, _mm256_xor_si256(c, d)));
}
inline md4v v_add_h(md4v acc, md4v b, md4v c, md4v d) noexcept {
    return _mm256_add_epi32(acc, _mm256_xor_si256(b, _mm256_xor_si256(c, d)));
}
#define MD4_ROTL(x, s) _mm256_or_si256(_mm256_slli_epi32((x), (s)), _mm256_srli_epi32((x), 32 - (s)))

// Lanes i and i+4: a 128-bit load plus vinserti128 from memory.
inline md4v v_load_rows(const std::uint8_t* const p[], int i, std::size_t off) noexcept {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i] + off));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i + 4] + off));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}
inline md4v v_unpacklo32(md4v a, md4v b) noexcept {
    return _mm256_unpacklo_epi32(a, b);
}
inline md4v v_unpackhi32(md4v a, md4v b) noexcept {
    return _mm256_unpackhi_epi32(a, b);
}
inline md4v v_unpacklo64(md4v a, md4v b) noexcept {
    return _mm256_unpacklo_epi64(a, b);
}
inline md4v v_unpackhi64(md4v a, md4v b) noexcept {
    return _mm256_unpackhi_epi64(a, b);
}
inline void v_store(std::uint32_t* dst, md4v v) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), v);
}

#include "md4_simd_body.inc"

#undef MD4_ROTL
#undef MD4_LANES

}  // namespace
}  // namespace rdelta::detail::md4_avx2

void rdelta::detail::md4_x8_avx2(const std::uint8_t* const msgs[8], std::size_t len, std::uint8_t* out,
                                 std::size_t out_stride) noexcept {
    md4_avx2::md4_multi(msgs, len, out, out_stride);
}
