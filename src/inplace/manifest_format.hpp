// manifest_format.hpp - the byte layout of an image's chunk manifest
// (docs/format.md, "Manifest"; rdelta/manifest.hpp says what it is for).
//
//   0  "rdmf" (0x72646d66)      40 ctime, seconds (i64)
//   4  version (u32) = 1        48 ctime, nanoseconds (i64)
//   8  chunk size (u32)         56 root over the chunk hashes (16 bytes)
//  12  reserved (u32) = 0       72 the chunk hashes, 16 bytes each, in order:
//  16  file length (u64)           chunk_count(length, chunk size) of them
//  24  device (u64)
//  32  inode (u64)
// Integers are big-endian. The header is written last, so a manifest is complete
// when its header is there.
#pragma once

#include "format/chunk_hasher.hpp"
#include "format/netint.hpp"

#include <cstdint>
#include <cstring>

namespace rdelta::detail {

inline constexpr std::uint32_t manifest_tag = 0x72646d66u;
inline constexpr std::uint32_t manifest_version = 1;
inline constexpr std::size_t manifest_header_size = 72;

struct manifest_header {
    std::uint32_t chunk_size = default_chunk_size;
    std::uint64_t length = 0, dev = 0, ino = 0;
    std::int64_t ctime_s = 0, ctime_ns = 0;
    chunk_hash root{};

    std::uint64_t chunks() const noexcept { return chunk_count(length, chunk_size); }
    /// Where chunk `i`'s hash is.
    static std::uint64_t entry_at(std::uint64_t i) noexcept { return manifest_header_size + 16 * i; }
};

inline void encode_manifest_header(const manifest_header& h, std::uint8_t out[manifest_header_size]) noexcept {
    put_be(out, manifest_tag, 4);
    put_be(out + 4, manifest_version, 4);
    put_be(out + 8, h.chunk_size, 4);
    put_be(out + 12, 0, 4);
    put_be(out + 16, h.length, 8);
    put_be(out + 24, h.dev, 8);
    put_be(out + 32, h.ino, 8);
    put_be(out + 40, static_cast<std::uint64_t>(h.ctime_s), 8);
    put_be(out + 48, static_cast<std::uint64_t>(h.ctime_ns), 8);
    std::memcpy(out + 56, h.root.data(), 16);
}

/// False when the bytes are no manifest header of this version.
inline bool decode_manifest_header(const std::uint8_t in[manifest_header_size], manifest_header& h) noexcept {
    if (get_be32(in) != manifest_tag || get_be32(in + 4) != manifest_version || get_be32(in + 12) != 0) return false;
    h.chunk_size = get_be32(in + 8);
    if (h.chunk_size != default_chunk_size) return false;  // the only size this version writes (and buffers)
    h.length = get_be(in + 16, 8);
    h.dev = get_be(in + 24, 8);
    h.ino = get_be(in + 32, 8);
    h.ctime_s = static_cast<std::int64_t>(get_be(in + 40, 8));
    h.ctime_ns = static_cast<std::int64_t>(get_be(in + 48, 8));
    std::memcpy(h.root.data(), in + 56, 16);
    return true;
}

}  // namespace rdelta::detail
