// window_skip_avx512.cpp - window skipping 16 windows at a time in zmm registers
// (checksum/rolling_lanes_body.inc and window_skip_body.inc over AVX-512F/BW/VL).
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx2 -mbmi2; internal linkage
// and no STL, as in checksum/weak_avx512.cpp.
#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>

#include "window_skip_kernels.hpp"

namespace rdelta::detail::window_skip_avx512 {
namespace {

#define RL_LANES 16
#define RL_BATCH 8
typedef __m512i rv;

inline rv rv_set1(std::uint32_t x) noexcept {
    return _mm512_set1_epi32(static_cast<int>(x));
}
inline rv rv_load_u32(const std::uint32_t* p) noexcept {
    return _mm512_loadu_si512(p);
}
inline void rv_store(std::uint32_t* p, rv v) noexcept {
    _mm512_store_si512(p, v);
}
inline rv rv_add(rv a, rv b) noexcept {
    return _mm512_add_epi32(a, b);
}
inline rv rv_sub(rv a, rv b) noexcept {
    return _mm512_sub_epi32(a, b);
}
inline rv rv_mullo(rv a, rv b) noexcept {
    return _mm512_mullo_epi32(a, b);
}
inline rv rv_or(rv a, rv b) noexcept {
    return _mm512_or_si512(a, b);
}
inline rv rv_xor(rv a, rv b) noexcept {
    return _mm512_xor_si512(a, b);
}
inline rv rv_and(rv a, rv b) noexcept {
    return _mm512_and_si512(a, b);
}
#define RV_SRLI(x, s) _mm512_srli_epi32((x), (s))
#define RV_SLLI(x, s) _mm512_slli_epi32((x), (s))
inline rv rv_bytes(const std::uint8_t* p) noexcept {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
template <int K>
inline rv rv_up(rv y) noexcept {
    return _mm512_alignr_epi32(y, _mm512_setzero_si512(), 16 - K);
}
inline rv rv_last(rv y) noexcept {
    return _mm512_permutexvar_epi32(_mm512_set1_epi32(15), y);
}
inline rv rv_zero_to(rv v, rv repl) noexcept {
    return _mm512_mask_mov_epi32(v, _mm512_cmpeq_epi32_mask(v, _mm512_setzero_si512()), repl);
}
inline rv rv_key(rv v) noexcept {
    return _mm512_mask_mov_epi32(v, _mm512_cmpeq_epi32_mask(v, _mm512_setzero_si512()), _mm512_set1_epi32(-1));
}

#include "checksum/rolling_lanes_body.inc"

// Eight keys' filter words (loaded one by one: a gather is no faster on Zen 5, and
// much slower on Intel CPUs with the GDS microcode) and their bit numbers m
// (prefilter.hpp): rotating a word right by a bit number brings that bit to bit 0,
// and vprorvq takes the count mod 64, which is the field's own 6 bits.
inline unsigned passing8(const std::uint64_t* words, const std::uint32_t* word, __m256i m32) noexcept {
    const __m512i w = _mm512_set_epi64(static_cast<long long>(words[word[7]]), static_cast<long long>(words[word[6]]),
                                       static_cast<long long>(words[word[5]]), static_cast<long long>(words[word[4]]),
                                       static_cast<long long>(words[word[3]]), static_cast<long long>(words[word[2]]),
                                       static_cast<long long>(words[word[1]]), static_cast<long long>(words[word[0]]));
    const __m512i m = _mm512_cvtepu32_epi64(m32);
    const __m512i three =
        _mm512_ternarylogic_epi64(_mm512_rorv_epi64(w, m), _mm512_rorv_epi64(w, _mm512_srli_epi64(m, 6)),
                                  _mm512_rorv_epi64(w, _mm512_srli_epi64(m, 12)), 0x80);  // a & b & c
    const __m512i fourth = _mm512_and_si512(_mm512_rorv_epi64(w, _mm512_srli_epi64(m, 18)), _mm512_set1_epi64(1));
    return _mm512_test_epi64_mask(three, fourth);  // bit 0 of all four
}

inline rv rl_words_by(prefilter_view f, rv keys, rv word_mult, rv bit_mult, std::uint32_t* at) noexcept {
    rv_store(at, _mm512_srl_epi32(rv_mullo(keys, word_mult), _mm_cvtsi32_si128(static_cast<int>(f.shift))));
    return RV_SRLI(rv_mullo(keys, bit_mult), prefilter_bit_shift);
}

inline rv rl_words(prefilter_view f, rv keys, std::uint32_t* at) noexcept {
    return rl_words_by(f, keys, rv_set1(prefilter_word_mult), rv_set1(prefilter_bit_mult), at);
}

inline unsigned rl_test(prefilter_view f, const std::uint32_t* at, rv m) noexcept {
    return passing8(f.words, at, _mm512_castsi512_si256(m)) | passing8(f.words, at + 8, _mm512_extracti64x4_epi64(m, 1))
                                                                  << 8;
}

#include "window_skip_body.inc"

#undef RV_SRLI
#undef RV_SLLI
#undef RL_BATCH
#undef RL_LANES

}  // namespace
}  // namespace rdelta::detail::window_skip_avx512

std::size_t rdelta::detail::rabinkarp_skip_avx512(prefilter_view f, const std::uint8_t* d, std::size_t p,
                                                  std::size_t limit, std::size_t n, std::uint32_t mult_pow,
                                                  std::uint32_t* hash) noexcept {
    return window_skip_avx512::rk_skip(f, d, p, limit, n, mult_pow, hash);
}

std::size_t rdelta::detail::rollsum_skip_avx512(prefilter_view f, const std::uint8_t* d, std::size_t p,
                                                std::size_t limit, std::size_t n, std::uint32_t* s1,
                                                std::uint32_t* s2) noexcept {
    return window_skip_avx512::rs_skip(f, d, p, limit, n, s1, s2);
}
