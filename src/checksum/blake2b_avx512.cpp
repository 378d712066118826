// blake2b_avx512.cpp - BLAKE2b-256 of 8 messages at once (AVX-512), and of 16 as
// two interleaved groups of 8.
//
// Each mix is one serial chain and a round has four independent ones, too few to
// keep the vector units busy: the 16-message kernel runs every operation on two
// zmm registers of unrelated messages, which doubles the independent chains
// (32 KiB messages in L2 on Zen 5: 6.1 GB/s against 5.2 GB/s with 8).
//
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx2 -mbmi2. Only
// blake2b256_x8_avx512, blake2b256_x8_var_avx512 and blake2b256_x16_avx512 have external linkage;
// everything else is in an anonymous namespace and this file includes no STL
// (see blake2b_avx2.cpp).
#include "blake2b_kernels.hpp"

// GCC 12's AVX-512 intrinsics seed results with a self-initialised
// _mm512_undefined_epi32(), which -W(maybe-)uninitialized reports once
// inlined (GCC PR 105593, fixed in GCC 13). The warning is about the header.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rdelta::detail {
namespace {

#define RDELTA_B2_INLINE inline __attribute__((always_inline))

namespace one_zmm {

// Lane-type abstraction for blake2b_simd_body.inc: message i in 64-bit lane i of a zmm.
using vec = __m512i;
constexpr std::size_t lanes = 8;
#define RDELTA_B2_LANE_TYPE_DEFINED 1

RDELTA_B2_INLINE vec vadd(vec a, vec b) noexcept { return _mm512_add_epi64(a, b); }
RDELTA_B2_INLINE vec vxor(vec a, vec b) noexcept { return _mm512_xor_si512(a, b); }
RDELTA_B2_INLINE vec vand(vec a, vec b) noexcept { return _mm512_and_si512(a, b); }
RDELTA_B2_INLINE vec vset1(std::uint64_t x) noexcept { return _mm512_set1_epi64(static_cast<long long>(x)); }
RDELTA_B2_INLINE vec vload(const std::uint64_t* w) noexcept { return _mm512_load_si512(w); }
RDELTA_B2_INLINE vec ror32(vec x) noexcept { return _mm512_ror_epi64(x, 32); }
RDELTA_B2_INLINE vec ror24(vec x) noexcept { return _mm512_ror_epi64(x, 24); }
RDELTA_B2_INLINE vec ror16(vec x) noexcept { return _mm512_ror_epi64(x, 16); }
RDELTA_B2_INLINE vec ror63(vec x) noexcept { return _mm512_ror_epi64(x, 63); }

RDELTA_B2_INLINE __m128i load128(const std::uint8_t* p) noexcept {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// Bytes 16k..16k+15 of messages a, b, c, d as the four 128-bit lanes of a zmm.
RDELTA_B2_INLINE vec gather4x128(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* c,
                                 const std::uint8_t* d) noexcept {
    const __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(load128(a)), load128(b), 1);
    const __m256i hi = _mm256_inserti128_si256(_mm256_castsi128_si256(load128(c)), load128(d), 1);
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}

// Words 2k and 2k+1 of the eight messages: a holds the even messages' 16-byte
// pieces, b the odd ones'; unpacklo/unpackhi pair them up lane by lane.
RDELTA_B2_INLINE void load_words(const std::uint8_t* const p[lanes], vec m[16]) noexcept {
    for (int k = 0; k < 8; ++k) {
        const vec a = gather4x128(p[0] + 16 * k, p[2] + 16 * k, p[4] + 16 * k, p[6] + 16 * k);
        const vec b = gather4x128(p[1] + 16 * k, p[3] + 16 * k, p[5] + 16 * k, p[7] + 16 * k);
        m[2 * k] = _mm512_unpacklo_epi64(a, b);
        m[2 * k + 1] = _mm512_unpackhi_epi64(a, b);
    }
}

// Transpose h[0..3] (4 words x 8 lanes) into eight 32-byte digests.
RDELTA_B2_INLINE void store_digests(const vec h[8], std::uint8_t* out, std::size_t stride) noexcept {
    // 128-bit lane k of t0 is (h0, h1) of message 2k, of t1 of message 2k+1;
    // t2 and t3 likewise hold (h2, h3).
    const vec t0 = _mm512_unpacklo_epi64(h[0], h[1]);
    const vec t1 = _mm512_unpackhi_epi64(h[0], h[1]);
    const vec t2 = _mm512_unpacklo_epi64(h[2], h[3]);
    const vec t3 = _mm512_unpackhi_epi64(h[2], h[3]);
    // Pair up 128-bit lanes: digest of message 2k, 2k+4 (from t0/t2) in one zmm.
    const vec e01 = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));  // t0.0 t0.1 t2.0 t2.1
    const vec e23 = _mm512_shuffle_i64x2(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));  // t0.2 t0.3 t2.2 t2.3
    const vec o01 = _mm512_shuffle_i64x2(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    const vec o23 = _mm512_shuffle_i64x2(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    const vec d02 = _mm512_shuffle_i64x2(e01, e01, _MM_SHUFFLE(3, 1, 2, 0));  // msg 0 | msg 2
    const vec d46 = _mm512_shuffle_i64x2(e23, e23, _MM_SHUFFLE(3, 1, 2, 0));  // msg 4 | msg 6
    const vec d13 = _mm512_shuffle_i64x2(o01, o01, _MM_SHUFFLE(3, 1, 2, 0));  // msg 1 | msg 3
    const vec d57 = _mm512_shuffle_i64x2(o23, o23, _MM_SHUFFLE(3, 1, 2, 0));  // msg 5 | msg 7
    const vec pairs[4] = {d02, d13, d46, d57};
    const int first[4] = {0, 1, 4, 5};
    for (int j = 0; j < 4; ++j) {
        std::uint8_t* const lo = out + static_cast<std::size_t>(first[j]) * stride;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo), _mm512_castsi512_si256(pairs[j]));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo + 2 * stride), _mm512_extracti64x4_epi64(pairs[j], 1));
    }
}

#include "blake2b_simd_body.inc"

#undef RDELTA_B2_LANE_TYPE_DEFINED

}  // namespace one_zmm

namespace two_zmm {

// Lane-type abstraction for blake2b_simd_body.inc: messages 0..7 in the lanes of
// `lo`, 8..15 in those of `hi`; every operation is done on both. Equal lengths
// only (RDELTA_B2_EQUAL_LENGTHS_ONLY), so vand and vload are not needed.
struct vec {
    __m512i lo, hi;
};
constexpr std::size_t lanes = 16;
#define RDELTA_B2_LANE_TYPE_DEFINED 1

RDELTA_B2_INLINE vec vadd(vec a, vec b) noexcept { return {_mm512_add_epi64(a.lo, b.lo), _mm512_add_epi64(a.hi, b.hi)}; }
RDELTA_B2_INLINE vec vxor(vec a, vec b) noexcept { return {_mm512_xor_si512(a.lo, b.lo), _mm512_xor_si512(a.hi, b.hi)}; }
RDELTA_B2_INLINE vec vset1(std::uint64_t x) noexcept {
    const __m512i v = _mm512_set1_epi64(static_cast<long long>(x));
    return {v, v};
}
template <int R>
RDELTA_B2_INLINE vec ror(vec x) noexcept {
    return {_mm512_ror_epi64(x.lo, R), _mm512_ror_epi64(x.hi, R)};
}
RDELTA_B2_INLINE vec ror32(vec x) noexcept { return ror<32>(x); }
RDELTA_B2_INLINE vec ror24(vec x) noexcept { return ror<24>(x); }
RDELTA_B2_INLINE vec ror16(vec x) noexcept { return ror<16>(x); }
RDELTA_B2_INLINE vec ror63(vec x) noexcept { return ror<63>(x); }

RDELTA_B2_INLINE void load_words(const std::uint8_t* const p[lanes], vec m[16]) noexcept {
    __m512i lo[16], hi[16];
    one_zmm::load_words(p, lo);
    one_zmm::load_words(p + 8, hi);
    for (int j = 0; j < 16; ++j) m[j] = {lo[j], hi[j]};
}

RDELTA_B2_INLINE void store_digests(const vec h[8], std::uint8_t* out, std::size_t stride) noexcept {
    __m512i lo[8], hi[8];
    for (int j = 0; j < 8; ++j) lo[j] = h[j].lo, hi[j] = h[j].hi;
    one_zmm::store_digests(lo, out, stride);
    one_zmm::store_digests(hi, out + 8 * stride, stride);
}

#define RDELTA_B2_EQUAL_LENGTHS_ONLY 1
#include "blake2b_simd_body.inc"

#undef RDELTA_B2_EQUAL_LENGTHS_ONLY
#undef RDELTA_B2_LANE_TYPE_DEFINED

}  // namespace two_zmm

}  // namespace

void blake2b256_x8_avx512(const std::uint8_t* const msgs[8], std::size_t len, std::uint8_t* out,
                          std::size_t out_stride) noexcept {
    one_zmm::hash_lanes(msgs, len, out, out_stride);
}

void blake2b256_x8_var_avx512(const std::uint8_t* const msgs[8], const std::size_t lens[8], std::uint8_t* out,
                              std::size_t out_stride) noexcept {
    one_zmm::hash_lanes_var(msgs, lens, out, out_stride);
}

void blake2b256_x16_avx512(const std::uint8_t* const msgs[16], std::size_t len, std::uint8_t* out,
                           std::size_t out_stride) noexcept {
    two_zmm::hash_lanes(msgs, len, out, out_stride);
}

}  // namespace rdelta::detail
