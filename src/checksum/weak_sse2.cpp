// weak_sse2.cpp - whole-block weak sums in xmm registers. Rollsum is weak_simd_body.inc
// over SSE2; RabinKarp has its own body below, as SSE2 has no pmulld for the shared one.
// Compiled with -msse2 (the x86-64 baseline). Everything but the kernel entries has
// internal linkage in namespace weak_sse2, and no STL is included (HACKING.md, "SIMD kernels and dispatch").
#include "cpu/x86_intrinsics.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "weak_kernels.hpp"

namespace rdelta::detail::weak_sse2 {
namespace {

#define WEAK_W 16
#define WEAK_LOG2_W 4
#define WEAK_HAVE_MULLO 0
typedef __m128i wv;

inline wv v_zero() noexcept {
    return _mm_setzero_si128();
}
inline wv v_load(const std::uint8_t* p) noexcept {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline wv v_and(wv a, wv b) noexcept {
    return _mm_and_si128(a, b);
}
inline wv v_add(wv a, wv b) noexcept {
    return _mm_add_epi32(a, b);
}
#define WEAK_SRLI(x, s) _mm_srli_epi32((x), (s))
#define WEAK_SLLI(x, s) _mm_slli_epi32((x), (s))
inline wv v_sad(wv x) noexcept {
    return _mm_sad_epu8(x, _mm_setzero_si128());
}
// No pmaddubsw before SSSE3: x and y are widened to 16 bits and added (the weights
// are the same for both), then pmaddwd weighs the sums.
inline wv v_madd2(wv x, wv y) noexcept {
    const wv zero = _mm_setzero_si128();
    const wv lo = _mm_add_epi16(_mm_unpacklo_epi8(x, zero), _mm_unpacklo_epi8(y, zero));
    const wv hi = _mm_add_epi16(_mm_unpackhi_epi8(x, zero), _mm_unpackhi_epi8(y, zero));
    return _mm_add_epi32(_mm_madd_epi16(lo, _mm_setr_epi16(16, 15, 14, 13, 12, 11, 10, 9)),
                         _mm_madd_epi16(hi, _mm_setr_epi16(8, 7, 6, 5, 4, 3, 2, 1)));
}
inline std::uint32_t v_hsum(wv s) noexcept {
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(s));
}

#include "weak_simd_body.inc"

// RabinKarp without pmulld. A byte times a 32-bit constant C, mod 2^32, is
// b * lo + ((b * hi) << 16) with C = hi * 2^16 + lo; pmaddwd multiplies signed
// 16-bit words, so lo is taken in [-2^15, 2^15) and hi corrected by the borrow (only
// hi mod 2^16 matters once shifted). The block goes in chunks of up to 256 bytes
// (a multiple of 16): every byte is multiplied by its own power M^(L-1-k) from a
// table, the products summed in two vectors, and only the chunk total joins the
// scalar chain h = h * M^L + total. A chunk of L < 256 bytes uses the table's last
// L / 16 rows; the last n % 16 bytes are one more 16-byte row over a masked window.
constexpr std::size_t rk_chunk = 256;

struct rk_row {  // the powers for one 16-byte row, in pmaddwd's word order
    std::int16_t even_lo[8], odd_lo[8], even_hi[8], odd_hi[8];  // even: bytes 0, 2, ..; odd: 1, 3, ..
};
struct rk_sse2_tables {
    rk_row rows[rk_chunk / 16];       // row k: bytes 16k .. 16k+15 of a 256-byte chunk
    std::uint32_t pow[rk_chunk + 1];  // M^0 .. M^256
};

constexpr void rk_split(std::uint32_t c, std::int16_t& lo, std::int16_t& hi) noexcept {
    const std::uint32_t l = c & 0xffff, borrow = l >= 0x8000 ? 1 : 0;
    lo = static_cast<std::int16_t>(static_cast<std::int32_t>(l) - static_cast<std::int32_t>(borrow << 16));
    const std::uint32_t h = ((c >> 16) + borrow) & 0xffff;
    hi = static_cast<std::int16_t>(static_cast<std::int32_t>(h) - (h >= 0x8000 ? 0x10000 : 0));
}

constexpr rk_sse2_tables make_rk_sse2_tables() noexcept {
    rk_sse2_tables t{};
    std::uint32_t m = 1;
    for (std::size_t k = 0; k <= rk_chunk; ++k, m *= weak_mult) t.pow[k] = m;
    for (std::size_t row = 0; row < rk_chunk / 16; ++row)
        for (std::size_t i = 0; i < 8; ++i) {
            const std::size_t even = 16 * row + 2 * i, odd = even + 1;
            rk_split(t.pow[rk_chunk - 1 - even], t.rows[row].even_lo[i], t.rows[row].even_hi[i]);
            rk_split(t.pow[rk_chunk - 1 - odd], t.rows[row].odd_lo[i], t.rows[row].odd_hi[i]);
        }
    return t;
}

alignas(64) constexpr rk_sse2_tables rk_consts = make_rk_sse2_tables();

inline wv rk_load_words(const std::int16_t* w) noexcept {
    return _mm_load_si128(reinterpret_cast<const __m128i*>(w));
}

// lo, hi += the products of the 16 bytes x with one table row.
inline void rk_row_madd(wv x, const rk_row& row, wv& lo, wv& hi) noexcept {
    const wv even = _mm_and_si128(x, _mm_set1_epi16(0xff)), odd = _mm_srli_epi16(x, 8);
    lo = _mm_add_epi32(lo, _mm_add_epi32(_mm_madd_epi16(even, rk_load_words(row.even_lo)),
                                         _mm_madd_epi16(odd, rk_load_words(row.odd_lo))));
    hi = _mm_add_epi32(hi, _mm_add_epi32(_mm_madd_epi16(even, rk_load_words(row.even_hi)),
                                         _mm_madd_epi16(odd, rk_load_words(row.odd_hi))));
}

inline std::uint32_t rk_total(wv lo, wv hi) noexcept {
    return v_hsum(_mm_add_epi32(lo, _mm_slli_epi32(hi, 16)));
}

inline std::uint32_t rk_block_sse2(const std::uint8_t* p, std::size_t n) noexcept {
    const rk_sse2_tables& t = rk_consts;
    std::uint32_t h = 1;
    std::size_t i = 0;
    while (n - i >= 16) {
        const std::size_t left = (n - i) & ~std::size_t{15};
        const std::size_t len = left < rk_chunk ? left : rk_chunk;
        const rk_row* row = t.rows + (rk_chunk - len) / 16;
        wv lo = _mm_setzero_si128(), hi = _mm_setzero_si128();
        for (std::size_t k = 0; k < len; k += 16, ++row) rk_row_madd(v_load(p + i + k), *row, lo, hi);
        h = h * t.pow[len] + rk_total(lo, hi);
        i += len;
    }
    const std::size_t r = n - i;
    if (r != 0) {  // a 16-byte window ending at p + n, or the block in a zeroed buffer
        std::uint8_t buf[16] = {};
        const std::uint8_t* win = buf;
        if (n >= 16)
            win = p + n - 16;
        else
            std::memcpy(buf + 16 - n, p, n);
        // keep_last (weak_simd_body.inc) at 2W - 16 + r keeps the last r of 16 bytes.
        const wv x = v_and(v_load(win), v_load(weak_consts.keep_last + weak_step - 16 + r));
        wv lo = _mm_setzero_si128(), hi = _mm_setzero_si128();
        rk_row_madd(x, t.rows[rk_chunk / 16 - 1], lo, hi);
        h = h * t.pow[r] + rk_total(lo, hi);
    }
    return h;
}

#undef WEAK_SRLI
#undef WEAK_SLLI
#undef WEAK_HAVE_MULLO
#undef WEAK_LOG2_W
#undef WEAK_W

}  // namespace
}  // namespace rdelta::detail::weak_sse2

std::uint32_t rdelta::detail::rabinkarp_block_sse2(const std::uint8_t* p, std::size_t n) noexcept {
    return weak_sse2::rk_block_sse2(p, n);
}

void rdelta::detail::rollsum_block_sse2(const std::uint8_t* p, std::size_t n, std::uint32_t* s1,
                                        std::uint32_t* s2) noexcept {
    weak_sse2::rs_block(p, n, s1, s2);
}
