// mdfour.cpp - RFC 1320 MD4 for rs_mdfour*(). librsync's header leaves rs_mdfour_t
// incomplete, yet callers of rs_mdfour_begin() must provide its storage: they copy
// librsync's private layout (96 bytes on x86-64), so ours is that layout exactly.
#include "capi.hpp"

#include "checksum/md4_kernels.hpp"

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

void store_le32(unsigned char* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// The library's scalar MD4 compression (src/checksum/md4_scalar.cpp), on the state
// kept in librsync's layout.
void block(rs_mdfour_t* md, const unsigned char* p) {
    std::uint32_t st[4] = {md->A, md->B, md->C, md->D};
    rdelta::detail::md4_compress(st, p);
    md->A = st[0], md->B = st[1], md->C = st[2], md->D = st[3];
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
