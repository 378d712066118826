// window_skip_avx2.cpp - window skipping 8 windows at a time in ymm registers
// (checksum/rolling_lanes_body.inc and window_skip_body.inc over AVX2). Compiled
// with -mavx2 -mbmi2; internal linkage and no STL, as in checksum/weak_avx2.cpp.
#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>

#include "window_skip_kernels.hpp"

namespace rdelta::detail::window_skip_avx2 {
namespace {

#define RL_LANES 8
#define RL_BATCH 8
typedef __m256i rv;

inline rv rv_set1(std::uint32_t x) noexcept {
    return _mm256_set1_epi32(static_cast<int>(x));
}
inline rv rv_load_u32(const std::uint32_t* p) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline void rv_store(std::uint32_t* p, rv v) noexcept {
    _mm256_store_si256(reinterpret_cast<__m256i*>(p), v);
}
inline rv rv_add(rv a, rv b) noexcept {
    return _mm256_add_epi32(a, b);
}
inline rv rv_sub(rv a, rv b) noexcept {
    return _mm256_sub_epi32(a, b);
}
inline rv rv_mullo(rv a, rv b) noexcept {
    return _mm256_mullo_epi32(a, b);
}
inline rv rv_or(rv a, rv b) noexcept {
    return _mm256_or_si256(a, b);
}
inline rv rv_xor(rv a, rv b) noexcept {
    return _mm256_xor_si256(a, b);
}
inline rv rv_and(rv a, rv b) noexcept {
    return _mm256_and_si256(a, b);
}
#define RV_SRLI(x, s) _mm256_srli_epi32((x), (s))
#define RV_SLLI(x, s) _mm256_slli_epi32((x), (s))
inline rv rv_bytes(const std::uint8_t* p) noexcept {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}
// Lanes move up across the two 128-bit halves: the low half joins the high one
// from below (vperm2i128), then palignr shifts each half by K lanes.
template <int K>
inline rv rv_up(rv y) noexcept {
    const rv low_up = _mm256_permute2x128_si256(y, y, 0x08);  // [0, low half of y]
    if constexpr (K == 4)
        return low_up;
    else
        return _mm256_alignr_epi8(y, low_up, 16 - 4 * K);
}
inline rv rv_last(rv y) noexcept {
    return _mm256_permutevar8x32_epi32(y, _mm256_set1_epi32(7));
}
inline rv rv_zero_to(rv v, rv repl) noexcept {
    return _mm256_blendv_epi8(v, repl, _mm256_cmpeq_epi32(v, _mm256_setzero_si256()));
}
inline rv rv_key(rv v) noexcept {
    return _mm256_or_si256(v, _mm256_cmpeq_epi32(v, _mm256_setzero_si256()));
}

#include "checksum/rolling_lanes_body.inc"

// Four keys' filter words (loaded one by one: a gather is no faster on Zen 5, and
// much slower on Intel CPUs with the GDS microcode) and their bit numbers m
// (prefilter.hpp): shifting a word right by a bit number brings that bit to bit 0.
inline unsigned passing4(const std::uint64_t* words, const std::uint32_t* word, __m128i m32) noexcept {
    const __m256i w = _mm256_set_epi64x(static_cast<long long>(words[word[3]]), static_cast<long long>(words[word[2]]),
                                        static_cast<long long>(words[word[1]]), static_cast<long long>(words[word[0]]));
    const __m256i m = _mm256_cvtepu32_epi64(m32);  // m < 2^24: m >> 18 needs no mask
    const __m256i low6 = _mm256_set1_epi64x(63), one = _mm256_set1_epi64x(1);
    const __m256i all4 =
        _mm256_and_si256(_mm256_and_si256(_mm256_srlv_epi64(w, _mm256_and_si256(m, low6)),
                                          _mm256_srlv_epi64(w, _mm256_and_si256(_mm256_srli_epi64(m, 6), low6))),
                         _mm256_and_si256(_mm256_srlv_epi64(w, _mm256_and_si256(_mm256_srli_epi64(m, 12), low6)),
                                          _mm256_srlv_epi64(w, _mm256_srli_epi64(m, 18))));
    const __m256i ok = _mm256_cmpeq_epi64(_mm256_and_si256(all4, one), one);
    return static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(ok)));
}

inline rv rl_words_by(prefilter_view f, rv keys, rv word_mult, rv bit_mult, std::uint32_t* at) noexcept {
    rv_store(at, _mm256_srl_epi32(rv_mullo(keys, word_mult), _mm_cvtsi32_si128(static_cast<int>(f.shift))));
    return RV_SRLI(rv_mullo(keys, bit_mult), prefilter_bit_shift);
}

inline rv rl_words(prefilter_view f, rv keys, std::uint32_t* at) noexcept {
    return rl_words_by(f, keys, rv_set1(prefilter_word_mult), rv_set1(prefilter_bit_mult), at);
}

inline unsigned rl_test(prefilter_view f, const std::uint32_t* at, rv m) noexcept {
    return passing4(f.words, at, _mm256_castsi256_si128(m)) | passing4(f.words, at + 4, _mm256_extracti128_si256(m, 1))
                                                                  << 4;
}

#include "window_skip_body.inc"

#undef RV_SRLI
#undef RV_SLLI
#undef RL_BATCH
#undef RL_LANES

}  // namespace
}  // namespace rdelta::detail::window_skip_avx2

std::size_t rdelta::detail::rabinkarp_skip_avx2(prefilter_view f, const std::uint8_t* d, std::size_t p,
                                                std::size_t limit, std::size_t n, std::uint32_t mult_pow,
                                                std::uint32_t* hash) noexcept {
    return window_skip_avx2::rk_skip(f, d, p, limit, n, mult_pow, hash);
}

std::size_t rdelta::detail::rollsum_skip_avx2(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                              std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept {
    return window_skip_avx2::rs_skip(f, d, p, limit, n, s1, s2);
}
