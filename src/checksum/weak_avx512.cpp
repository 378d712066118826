// weak_avx512.cpp - whole-block weak sums in zmm registers (weak_simd_body.inc over
// AVX-512BW). Compiled with -mavx512f -mavx512bw -mavx512vl -mavx2 -mbmi2; internal
// linkage and no STL as in weak_avx2.cpp.
#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "weak_kernels.hpp"

namespace rdelta::detail::weak_avx512 {
namespace {

#define WEAK_W 64
#define WEAK_LOG2_W 6
#define WEAK_HAVE_MULLO 1
typedef __m512i wv;

inline wv v_zero() noexcept {
    return _mm512_setzero_si512();
}
inline wv v_set1(std::uint32_t x) noexcept {
    return _mm512_set1_epi32(static_cast<int>(x));
}
// Each vector is loaded once into a register: left free, GCC folds the load into
// every instruction that reads it (four per vector in the RabinKarp step), and
// where the block is not 64-byte aligned each of those loads splits across two
// cache lines, at less than half the speed (bench/README.md, "Measurements behind
// design choices").
inline wv v_load(const std::uint8_t* p) noexcept {
    wv v = _mm512_loadu_si512(p);
    __asm__("" : "+v"(v));
    return v;
}
inline wv v_and(wv a, wv b) noexcept {
    return _mm512_and_si512(a, b);
}
inline wv v_add(wv a, wv b) noexcept {
    return _mm512_add_epi32(a, b);
}
inline wv v_mullo(wv a, wv b) noexcept {
    return _mm512_mullo_epi32(a, b);
}
#define WEAK_SRLI(x, s) _mm512_srli_epi32((x), (s))
#define WEAK_SLLI(x, s) _mm512_slli_epi32((x), (s))
inline wv v_sad(wv x) noexcept {
    return _mm512_sad_epu8(x, _mm512_setzero_si512());
}
// Weights up to 64: one pmaddubsw pair sum reaches 2 * 255 * 64 - 255 = 32385, so
// x's and y's are widened by separate pmaddwd before they are added.
inline wv v_madd2(wv x, wv y) noexcept {
    const wv w =
        _mm512_set_epi8(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,  //
                        17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
                        41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64);
    const wv ones = _mm512_set1_epi16(1);
    return _mm512_add_epi32(_mm512_madd_epi16(_mm512_maddubs_epi16(x, w), ones),
                            _mm512_madd_epi16(_mm512_maddubs_epi16(y, w), ones));
}
inline std::uint32_t v_hsum(wv v) noexcept {
    const __m256i h = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
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
}  // namespace rdelta::detail::weak_avx512

std::uint32_t rdelta::detail::rabinkarp_block_avx512(const std::uint8_t* p, std::size_t n) noexcept {
    return weak_avx512::rk_block(p, n);
}

void rdelta::detail::rollsum_block_avx512(const std::uint8_t* p, std::size_t n, std::uint32_t* s1,
                                          std::uint32_t* s2) noexcept {
    weak_avx512::rs_block(p, n, s1, s2);
}
