// md4_many.hpp - MD4 of many equal-length blocks at once (signature generation).
//
// Picks the multi-buffer kernel by active_isa() (cpu/cpu_features.hpp), so
// RDELTA_FORCE_ISA and force_isa() reach every path. Digests match RFC 1320 MD4.
#pragma once

#include "multi_buffer.hpp"

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// 16-byte MD4 digests of consecutive blocks (multi_buffer.hpp, blocks_hash).
blocks_hash md4_many;

/// 16-byte MD4 digests of messages anywhere in memory (multi_buffer.hpp, gather_hash).
gather_hash md4_gather;

/// MD4 digest of one message.
void md4_one(const std::uint8_t* data, std::size_t len, std::uint8_t out[16]) noexcept;

}  // namespace rdelta::detail
