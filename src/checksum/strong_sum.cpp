// strong_sum.cpp - strong sums. Single blocks: our scalar MD4 and libb2's
// BLAKE2b (the library librsync itself uses). Many blocks: the multi-buffer SIMD
// kernels (md4_many.hpp, blake2b_many.hpp), tested against OpenSSL and libb2.
#include "strong_sum.hpp"

#include "blake2b_many.hpp"
#include "md4_many.hpp"

#include "cpu/cpu_features.hpp"

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

void strong_sum_many(strong_kind kind, const std::uint8_t* data, std::size_t block_len, std::size_t count,
                     std::uint8_t* out) noexcept {
    if (kind == strong_kind::md4) return md4_many(data, block_len, count, out, digest_stride);
    blake2b256_many(data, block_len, count, out, digest_stride);
}

std::size_t strong_sum_lanes(strong_kind kind) noexcept {
    if (kind == strong_kind::md4) return 16;
#if !defined(__aarch64__)
    if (active_isa() >= isa::avx512) return 16;  // blake2b256_x16_avx512
#endif
    return 8;
}

void strong_sum_gather(strong_kind kind, const std::uint8_t* const* msgs, std::size_t len, std::size_t count,
                       std::uint8_t* out) noexcept {
    if (kind == strong_kind::md4) return md4_gather(msgs, len, count, out, digest_stride);
    blake2b256_gather(msgs, len, count, out, digest_stride);
}

void strong_sum_gather_var(strong_kind kind, const std::uint8_t* const* msgs, const std::size_t* lens,
                           std::size_t count, std::uint8_t* out) noexcept {
    if (kind == strong_kind::blake2) return blake2b256_gather_var(msgs, lens, count, out, digest_stride);
    // MD4 has no different-length kernel: its messages are hashed one at a time.
    for (std::size_t i = 0; i < count; ++i) strong_sum(kind, msgs[i], lens[i], out + i * digest_stride);
}

}  // namespace rdelta::detail
