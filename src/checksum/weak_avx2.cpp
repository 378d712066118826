// weak_avx2.cpp - whole-block weak sums in ymm registers (weak_simd_body.inc over AVX2).
// Compiled with -mavx2 -mbmi2: everything here but the kernel entries has internal
// linkage in namespace weak_avx2 and no STL is included, so no AVX2-compiled copy
// of a shared inline function can leak into baseline code (HACKING.md, "SIMD kernels and dispatch").
#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "weak_kernels.hpp"

namespace rdelta::detail::weak_avx2 {
namespace {

#define WEAK_W 32
#define WEAK_LOG2_W 5
#define WEAK_HAVE_MULLO 1
typedef __m256i wv;

inline wv v_zero() noexcept {
    return _mm256_setzero_si256();
}
inline wv v_set1(std::uint32_t x) noexcept {
    return _mm256_set1_epi32(static_cast<int>(x));
}
inline wv v_load(const std::uint8_t* p) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline wv v_and(wv a, wv b) noexcept {
    return _mm256_and_si256(a, b);
}
inline wv v_add(wv a, wv b) noexcept {
    return _mm256_add_epi32(a, b);
}
inline wv v_mullo(wv a, wv b) noexcept {
    return _mm256_mullo_epi32(a, b);
}
#define WEAK_SRLI(x, s) _mm256_srli_epi32((x), (s))
#define WEAK_SLLI(x, s) _mm256_slli_epi32((x), (s))
inline wv v_sad(wv x) noexcept {
    return _mm256_sad_epu8(x, _mm256_setzero_si256());
}
// pmaddubsw: each 16-bit pair sum is at most 2 * 255 * 32, and x's plus y's at
// most 32130, so they are added before the one pmaddwd that widens them.
inline wv v_madd2(wv x, wv y) noexcept {
    const wv w = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17,  //
                                  16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
    const wv pairs = _mm256_add_epi16(_mm256_maddubs_epi16(x, w), _mm256_maddubs_epi16(y, w));
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
}
inline std::uint32_t v_hsum(wv v) noexcept {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(s));
}

#include "weak_simd_body.inc"

#undef WEAK_SRLI
#undef WEAK_SLLI
#undef WEAK_HAVE_MULLO
#undef WEAK_LOG2_W
#undef WEAK_W

}  // namespace
}  // namespace rdelta::detail::weak_avx2

std::uint32_t rdelta::detail::rabinkarp_block_avx2(const std::uint8_t* p, std::size_t n) noexcept {
    return weak_avx2::rk_block(p, n);
}

void rdelta::detail::rollsum_block_avx2(const std::uint8_t* p, std::size_t n, std::uint32_t* s1,
                                        std::uint32_t* s2) noexcept {
    weak_avx2::rs_block(p, n, s1, s2);
}
