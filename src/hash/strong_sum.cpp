// strong_sum.cpp - strong sums: MD4 from our multi-buffer kernels (md4_many.hpp,
// tested against OpenSSL's MD4), BLAKE2b with a 32-byte output parameter from
// libb2, the library librsync itself uses.
#include "strong_sum.hpp"

#include "md4_many.hpp"

#include <blake2.h>

namespace rdelta::detail {

void strong_sum(strong_kind kind, const std::uint8_t* data, std::size_t len, std::uint8_t* out) noexcept {
    if (kind == strong_kind::md4) {
        md4_one(data, len, out);
    } else {
        // BLAKE2b initialised with outlen 32: not a truncated BLAKE2b-512.
        blake2b(out, data, nullptr, 32, len, 0);
    }
}

void strong_sum_many(strong_kind kind, const std::uint8_t* data, std::size_t block_len,
                     std::size_t count, std::uint8_t* out) noexcept {
    if (kind == strong_kind::md4) return md4_many(data, block_len, count, out, digest_stride);
    for (std::size_t i = 0; i < count; ++i)
        strong_sum(kind, data + i * block_len, block_len, out + i * digest_stride);
}

}  // namespace rdelta::detail
