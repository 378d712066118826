// strong_sum.cpp - reference strong sums from the libraries librsync itself uses:
// MD4 from OpenSSL's libcrypto (its low-level MD4 is deprecated, not removed, and
// needs no legacy provider), BLAKE2b with a 32-byte output parameter from libb2.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "strong_sum.hpp"

#include <blake2.h>
#include <openssl/md4.h>

namespace rdelta::detail {

void strong_sum(strong_kind kind, const std::uint8_t* data, std::size_t len, std::uint8_t* out) noexcept {
    if (kind == strong_kind::md4) {
        MD4(data, len, out);
    } else {
        // BLAKE2b initialised with outlen 32: not a truncated BLAKE2b-512.
        blake2b(out, data, nullptr, 32, len, 0);
    }
}

void strong_sum_many(strong_kind kind, const std::uint8_t* data, std::size_t block_len,
                     std::size_t count, std::uint8_t* out) noexcept {
    for (std::size_t i = 0; i < count; ++i)
        strong_sum(kind, data + i * block_len, block_len, out + i * digest_stride);
}

}  // namespace rdelta::detail
