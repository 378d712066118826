// md4_scalar.cpp - MD4 as RFC 1320 writes it: the reference for the SIMD kernels.
//
// Same shape as md4_simd_body.inc (three rounds of 16 steps, F/G/H, the same word
// orders and shifts), one message at a time. Portable: words are read and written
// little-endian byte by byte, which compilers turn into plain loads on x86.
#include "md4_kernels.hpp"

#include <cstring>

namespace rdelta::detail {

namespace {

inline std::uint32_t load_le32(const std::uint8_t* p) noexcept {
    return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

inline void store_le32(std::uint8_t* p, std::uint32_t v) noexcept {
    p[0] = static_cast<std::uint8_t>(v);
    p[1] = static_cast<std::uint8_t>(v >> 8);
    p[2] = static_cast<std::uint8_t>(v >> 16);
    p[3] = static_cast<std::uint8_t>(v >> 24);
}

inline std::uint32_t rotl(std::uint32_t x, int s) noexcept {
    return (x << s) | (x >> (32 - s));
}

// acc + F/G/H(b, c, d), the shape md4_simd_body.inc uses. F selects c or d by b;
// G is the bitwise majority, written as two disjoint bit sets added, so the newest
// value b enters the (latency-bound) chain last; H is parity.
inline std::uint32_t add_f(std::uint32_t acc, std::uint32_t b, std::uint32_t c, std::uint32_t d) noexcept {
    return acc + (d ^ (b & (c ^ d)));
}
inline std::uint32_t add_g(std::uint32_t acc, std::uint32_t b, std::uint32_t c, std::uint32_t d) noexcept {
    return (acc + (c & d)) + (b & (c ^ d));
}
inline std::uint32_t add_h(std::uint32_t acc, std::uint32_t b, std::uint32_t c, std::uint32_t d) noexcept {
    return acc + (b ^ c ^ d);
}

}  // namespace

void md4_compress(std::uint32_t st[4], const std::uint8_t* block) noexcept {
    std::uint32_t x[16];
    for (int i = 0; i < 16; ++i) x[i] = load_le32(block + 4 * i);
    std::uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
    constexpr std::uint32_t k2 = 0x5a827999u, k3 = 0x6ed9eba1u;

#define MD4_STEP(fn, a, b, c, d, wk, s) a = rotl(fn(a + (wk), b, c, d), s)
    // Round 1: words in order, shifts 3 7 11 19.
#define MD4_R1(k)                              \
    MD4_STEP(add_f, a, b, c, d, x[k + 0], 3);  \
    MD4_STEP(add_f, d, a, b, c, x[k + 1], 7);  \
    MD4_STEP(add_f, c, d, a, b, x[k + 2], 11); \
    MD4_STEP(add_f, b, c, d, a, x[k + 3], 19)
    // Round 2: words by column (k, k+4, k+8, k+12), shifts 3 5 9 13.
#define MD4_R2(k)                                  \
    MD4_STEP(add_g, a, b, c, d, x[k + 0] + k2, 3); \
    MD4_STEP(add_g, d, a, b, c, x[k + 4] + k2, 5); \
    MD4_STEP(add_g, c, d, a, b, x[k + 8] + k2, 9); \
    MD4_STEP(add_g, b, c, d, a, x[k + 12] + k2, 13)
    // Round 3: words k, k+8, k+4, k+12 for k = 0 2 1 3, shifts 3 9 11 15.
#define MD4_R3(k)                                   \
    MD4_STEP(add_h, a, b, c, d, x[k + 0] + k3, 3);  \
    MD4_STEP(add_h, d, a, b, c, x[k + 8] + k3, 9);  \
    MD4_STEP(add_h, c, d, a, b, x[k + 4] + k3, 11); \
    MD4_STEP(add_h, b, c, d, a, x[k + 12] + k3, 15)

    MD4_R1(0);
    MD4_R1(4);
    MD4_R1(8);
    MD4_R1(12);
    MD4_R2(0);
    MD4_R2(1);
    MD4_R2(2);
    MD4_R2(3);
    MD4_R3(0);
    MD4_R3(2);
    MD4_R3(1);
    MD4_R3(3);
#undef MD4_R1
#undef MD4_R2
#undef MD4_R3
#undef MD4_STEP

    st[0] += a;
    st[1] += b;
    st[2] += c;
    st[3] += d;
}

void md4_scalar(const std::uint8_t* data, std::size_t len, std::uint8_t out[16]) noexcept {
    std::uint32_t st[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
    const std::size_t full = len / 64;
    for (std::size_t i = 0; i < full; ++i) md4_compress(st, data + 64 * i);

    // Padding: 0x80, zeros up to 56 mod 64, then the bit length (mod 2^64) little-endian.
    const std::size_t rem = len % 64;
    const std::size_t tail_len = rem < 56 ? 64 : 128;
    std::uint8_t tail[128] = {};
    if (rem != 0) std::memcpy(tail, data + 64 * full, rem);
    tail[rem] = 0x80;
    const std::uint64_t bits = static_cast<std::uint64_t>(len) << 3;
    for (int i = 0; i < 8; ++i) tail[tail_len - 8 + i] = static_cast<std::uint8_t>(bits >> (8 * i));
    for (std::size_t off = 0; off < tail_len; off += 64) md4_compress(st, tail + off);

    for (int i = 0; i < 4; ++i) store_le32(out + 4 * i, st[i]);
}

}  // namespace rdelta::detail
