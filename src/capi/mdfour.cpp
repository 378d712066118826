// mdfour.cpp - RFC 1320 MD4 for rs_mdfour*(). librsync's header leaves rs_mdfour_t
// incomplete, yet callers of rs_mdfour_begin() must provide its storage: they copy
// librsync's private layout (96 bytes on x86-64), so ours is that layout exactly.
#include "capi.hpp"

#include <algorithm>
#include <cstring>

struct rs_mdfour {
    std::uint32_t A, B, C, D;
    std::uint64_t totalN;  // bytes hashed so far
    int tail_len;          // bytes waiting in tail
    unsigned char tail[64];
};
static_assert(sizeof(rs_mdfour_t) == 96, "callers allocate librsync's 96-byte rs_mdfour_t");

namespace {

constexpr std::uint32_t rotl(std::uint32_t x, int s) { return (x << s) | (x >> (32 - s)); }
constexpr std::uint32_t F(std::uint32_t x, std::uint32_t y, std::uint32_t z) { return (x & y) | (~x & z); }
constexpr std::uint32_t G(std::uint32_t x, std::uint32_t y, std::uint32_t z) { return (x & y) | (x & z) | (y & z); }
constexpr std::uint32_t H(std::uint32_t x, std::uint32_t y, std::uint32_t z) { return x ^ y ^ z; }

std::uint32_t load_le32(const unsigned char* p) {
    return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

void store_le32(unsigned char* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

void block(rs_mdfour_t* md, const unsigned char* p) {
    std::uint32_t X[16];
    for (int i = 0; i < 16; ++i) X[i] = load_le32(p + 4 * i);
    std::uint32_t a = md->A, b = md->B, c = md->C, d = md->D;
    static const int r1[4] = {3, 7, 11, 19}, r2[4] = {3, 5, 9, 13}, r3[4] = {3, 9, 11, 15};
    for (int i = 0; i < 16; ++i) {
        const std::uint32_t t = rotl(a + F(b, c, d) + X[i], r1[i % 4]);
        a = d, d = c, c = b, b = t;
    }
    for (int i = 0; i < 16; ++i) {
        const int k = (i % 4) * 4 + i / 4;  // columns: 0,4,8,12,1,5,...
        const std::uint32_t t = rotl(a + G(b, c, d) + X[k] + 0x5A827999u, r2[i % 4]);
        a = d, d = c, c = b, b = t;
    }
    static const int order3[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};
    for (int i = 0; i < 16; ++i) {
        const std::uint32_t t = rotl(a + H(b, c, d) + X[order3[i]] + 0x6ED9EBA1u, r3[i % 4]);
        a = d, d = c, c = b, b = t;
    }
    md->A += a, md->B += b, md->C += c, md->D += d;
}

}  // namespace

void rs_mdfour_begin(rs_mdfour_t* md) {
    std::memset(md, 0, sizeof *md);
    md->A = 0x67452301u, md->B = 0xefcdab89u, md->C = 0x98badcfeu, md->D = 0x10325476u;
}

void rs_mdfour_update(rs_mdfour_t* md, void const* in_void, size_t n) {
    const auto* in = static_cast<const unsigned char*>(in_void);
    md->totalN += n;
    if (md->tail_len) {
        const size_t take = std::min<size_t>(n, 64 - static_cast<size_t>(md->tail_len));
        std::memcpy(md->tail + md->tail_len, in, take);
        md->tail_len += static_cast<int>(take), in += take, n -= take;
        if (md->tail_len < 64) return;
        block(md, md->tail);
        md->tail_len = 0;
    }
    for (; n >= 64; in += 64, n -= 64) block(md, in);
    if (n) std::memcpy(md->tail, in, n);
    md->tail_len = static_cast<int>(n);
}

void rs_mdfour_result(rs_mdfour_t* md, unsigned char* out) {
    const std::uint64_t bits = md->totalN * 8;
    unsigned char pad[72] = {0x80};
    const size_t pad_len = (md->tail_len < 56 ? 56 : 120) - static_cast<size_t>(md->tail_len);
    for (int i = 0; i < 8; ++i) pad[pad_len + static_cast<size_t>(i)] = static_cast<unsigned char>(bits >> (8 * i));
    const std::uint64_t total = md->totalN;
    rs_mdfour_update(md, pad, pad_len + 8);
    md->totalN = total;  // the padding is not message data
    store_le32(out, md->A), store_le32(out + 4, md->B), store_le32(out + 8, md->C), store_le32(out + 12, md->D);
}

void rs_mdfour(unsigned char* out, void const* in, size_t n) {
    rs_mdfour_t md;
    rs_mdfour_begin(&md);
    rs_mdfour_update(&md, in, n);
    rs_mdfour_result(&md, out);
}
