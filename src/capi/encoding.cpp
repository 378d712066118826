// encoding.cpp - rs_hexify(), rs_base64() and rs_unbase64(): librsync's helpers for
// printing sums. Base64 uses the standard alphabet without '=' padding.
#include "capi.hpp"

#include <cstring>

namespace {
const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}

void rs_hexify(char* to_buf, void const* from_buf, int from_len) {
    static const char digits[] = "0123456789abcdef";
    const auto* from = static_cast<const unsigned char*>(from_buf);
    for (int i = 0; i < from_len; ++i) {
        *to_buf++ = digits[from[i] >> 4];
        *to_buf++ = digits[from[i] & 15];
    }
    *to_buf = '\0';
}

void rs_base64(unsigned char const* buf, int n, char* out) {
    // ceil(8n / 6) characters: 6-bit groups taken from the bit string, the last
    // one padded with zero bits.
    const int chars = (n * 8 + 5) / 6;
    for (int i = 0; i < chars; ++i) {
        const int byte = i * 6 / 8, bit = i * 6 % 8;
        unsigned v;
        if (bit <= 2)
            v = buf[byte] >> (2 - bit);
        else
            v = (buf[byte] << (bit - 2)) | (byte + 1 < n ? buf[byte + 1] >> (10 - bit) : 0);
        *out++ = b64_alphabet[v & 0x3f];
    }
    *out = '\0';
}

size_t rs_unbase64(char* s) {
    // Decodes in place, stopping at the first character outside the alphabet. As in
    // librsync, the count includes the byte a trailing partial group starts, so
    // "YW" gives 2 (the second byte zero).
    auto* d = reinterpret_cast<unsigned char*>(s);
    size_t n = 0;
    for (size_t i = 0; s[i]; ++i) {
        const char* p = std::strchr(b64_alphabet, s[i]);
        if (!p) break;
        const unsigned idx = static_cast<unsigned>(p - b64_alphabet);
        const size_t byte = i * 6 / 8;
        const unsigned bit = i * 6 % 8;
        d[byte] &= static_cast<unsigned char>(~((1u << (8 - bit)) - 1));
        if (bit < 3) {
            d[byte] |= static_cast<unsigned char>(idx << (2 - bit));
            n = byte + 1;
        } else {
            d[byte] |= static_cast<unsigned char>(idx >> (bit - 2));
            d[byte + 1] = static_cast<unsigned char>(idx << (8 - (bit - 2)));
            n = byte + 2;
        }
    }
    return n;
}
