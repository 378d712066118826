// md4_many.hpp - MD4 of many equal-length blocks at once (signature generation).
//
// Picks the multi-buffer kernel by active_isa() (cpu/cpu_features.hpp), so
// RDELTA_FORCE_ISA and force_isa() reach every path. Digests match RFC 1320 MD4.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// MD4 digests of `count` consecutive blocks data[i*block_len .. (i+1)*block_len);
/// digest i (16 bytes) goes to out + i * out_stride. Reads nothing past the last
/// block. Any block_len, 0 included.
void md4_many(const std::uint8_t* data, std::size_t block_len, std::size_t count, std::uint8_t* out,
              std::size_t out_stride) noexcept;

/// MD4 digests of the `count` messages in[i] of `len` bytes each (anywhere in
/// memory); digest i goes to out + i * out_stride.
void md4_gather(const std::uint8_t* const* in, std::size_t len, std::size_t count, std::uint8_t* out,
                std::size_t out_stride) noexcept;

/// MD4 digest of one message.
void md4_one(const std::uint8_t* data, std::size_t len, std::uint8_t out[16]) noexcept;

}  // namespace rdelta::detail
