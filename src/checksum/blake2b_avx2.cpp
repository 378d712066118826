// blake2b_avx2.cpp - BLAKE2b-256 of 4 messages at once (AVX2).
//
// Compiled with -mavx2 -mbmi2. Only blake2b256_x4_avx2 and blake2b256_x4_var_avx2
// have external linkage; everything else is in an anonymous namespace and this
// file includes no STL, so no AVX2-compiled weak symbol can replace a baseline
// one at link time.
#include "blake2b_kernels.hpp"

#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rdelta::detail {
namespace {

// Lane-type abstraction for blake2b_simd_body.inc: message i in 64-bit lane i of a ymm.
using vec = __m256i;
constexpr std::size_t lanes = 4;
#define RDELTA_B2_INLINE inline __attribute__((always_inline))
#define RDELTA_B2_LANE_TYPE_DEFINED 1

RDELTA_B2_INLINE vec vadd(vec a, vec b) noexcept {
    return _mm256_add_epi64(a, b);
}
RDELTA_B2_INLINE vec vxor(vec a, vec b) noexcept {
    return _mm256_xor_si256(a, b);
}
RDELTA_B2_INLINE vec vand(vec a, vec b) noexcept {
    return _mm256_and_si256(a, b);
}
RDELTA_B2_INLINE vec vset1(std::uint64_t x) noexcept {
    return _mm256_set1_epi64x(static_cast<long long>(x));
}
RDELTA_B2_INLINE vec vload(const std::uint64_t* w) noexcept {
    return _mm256_load_si256(reinterpret_cast<const vec*>(w));
}

// AVX2 has no 64-bit rotate: 32 is a dword swap, 24 and 16 are byte shuffles,
// 63 is (x >> 63) | (x + x).
RDELTA_B2_INLINE vec ror32(vec x) noexcept {
    return _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
}
RDELTA_B2_INLINE vec ror24(vec x) noexcept {
    const vec rot = _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10,  //
                                     3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10);
    return _mm256_shuffle_epi8(x, rot);
}
RDELTA_B2_INLINE vec ror16(vec x) noexcept {
    const vec rot = _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9,  //
                                     2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);
    return _mm256_shuffle_epi8(x, rot);
}
RDELTA_B2_INLINE vec ror63(vec x) noexcept {
    return _mm256_or_si256(_mm256_srli_epi64(x, 63), _mm256_add_epi64(x, x));
}

RDELTA_B2_INLINE __m128i load128(const std::uint8_t* p) noexcept {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// Words 2k and 2k+1 of the four messages: a = [p0 | p2], b = [p1 | p3] as 128-bit
// halves, then unpacklo/unpackhi pair them up lane by lane.
RDELTA_B2_INLINE void load_words(const std::uint8_t* const p[lanes], vec m[16]) noexcept {
    for (int k = 0; k < 8; ++k) {
        const vec a =
            _mm256_inserti128_si256(_mm256_castsi128_si256(load128(p[0] + 16 * k)), load128(p[2] + 16 * k), 1);
        const vec b =
            _mm256_inserti128_si256(_mm256_castsi128_si256(load128(p[1] + 16 * k)), load128(p[3] + 16 * k), 1);
        m[2 * k] = _mm256_unpacklo_epi64(a, b);
        m[2 * k + 1] = _mm256_unpackhi_epi64(a, b);
    }
}

// 4x4 transpose of h[0..3]: row i = the 32-byte digest of message i.
RDELTA_B2_INLINE void store_digests(const vec h[8], std::uint8_t* out, std::size_t stride) noexcept {
    const vec t0 = _mm256_unpacklo_epi64(h[0], h[1]);  // h0.0 h1.0 | h0.2 h1.2
    const vec t1 = _mm256_unpackhi_epi64(h[0], h[1]);  // h0.1 h1.1 | h0.3 h1.3
    const vec t2 = _mm256_unpacklo_epi64(h[2], h[3]);
    const vec t3 = _mm256_unpackhi_epi64(h[2], h[3]);
    _mm256_storeu_si256(reinterpret_cast<vec*>(out), _mm256_permute2x128_si256(t0, t2, 0x20));
    _mm256_storeu_si256(reinterpret_cast<vec*>(out + stride), _mm256_permute2x128_si256(t1, t3, 0x20));
    _mm256_storeu_si256(reinterpret_cast<vec*>(out + 2 * stride), _mm256_permute2x128_si256(t0, t2, 0x31));
    _mm256_storeu_si256(reinterpret_cast<vec*>(out + 3 * stride), _mm256_permute2x128_si256(t1, t3, 0x31));
}

#include "blake2b_simd_body.inc"

}  // namespace

void blake2b256_x4_avx2(const std::uint8_t* const msgs[4], std::size_t len, std::uint8_t* out,
                        std::size_t out_stride) noexcept {
    hash_lanes(msgs, len, out, out_stride);
}

void blake2b256_x4_var_avx2(const std::uint8_t* const msgs[4], const std::size_t lens[4], std::uint8_t* out,
                            std::size_t out_stride) noexcept {
    hash_lanes_var(msgs, lens, out, out_stride);
}

}  // namespace rdelta::detail
