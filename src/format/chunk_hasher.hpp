// chunk_hasher.hpp - a file's hash as a root over fixed-size chunks (docs/format.md,
// "Chunked checksum trailer" and "Manifest").
//
// Chunk i is bytes [i*C, min((i+1)*C, length)); its hash is the XXH3-128 of those
// bytes in xxHash's canonical (big-endian) form. The root is the XXH3-128 of every
// chunk hash in order, followed by the length (u64) and C (u32), big-endian. A patch
// that knows the hashes of the chunks it leaves alone (the image's manifest) then
// hashes only the chunks it writes, and an all-zero chunk (a hole) costs nothing.
#pragma once

#include <xxhash.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace rdelta::detail {

using chunk_hash = std::array<std::uint8_t, 16>;

/// 64 KiB: a scattered 4 KiB change rereads 64 KiB, and a 1 TiB image's manifest
/// is 256 MiB.
inline constexpr std::uint32_t default_chunk_size = std::uint32_t{1} << 16;

/// The canonical XXH3-128 of `n` bytes.
chunk_hash hash_bytes(const std::uint8_t* p, std::size_t n) noexcept;

/// 32 lowercase hex digits, for messages and records.
std::string hash_hex(const chunk_hash& h);

/// The hash of `n` zero bytes (n <= 1 GiB), computed once per length asked last.
chunk_hash zero_chunk_hash(std::size_t n);

/// Number of chunks of a `length`-byte file.
inline std::uint64_t chunk_count(std::uint64_t length, std::uint32_t chunk_size) noexcept {
    return length / chunk_size + (length % chunk_size != 0);
}

/// Chunk hashes and root of a byte stream fed in pieces.
class chunk_hasher {
public:
    explicit chunk_hasher(std::uint32_t chunk_size = default_chunk_size);
    ~chunk_hasher();
    chunk_hasher(const chunk_hasher&) = delete;
    chunk_hasher& operator=(const chunk_hasher&) = delete;

    void update(const std::uint8_t* p, std::size_t n);
    /// `n` zero bytes: whole chunks of zeros take the cached zero hash.
    void update_zeros(std::uint64_t n);
    /// At a chunk boundary, a whole chunk (or the last, shorter one) of `len` bytes
    /// whose hash is known.
    void add_known(const chunk_hash& h, std::uint64_t len);
    bool at_boundary() const noexcept { return in_chunk_ == 0; }
    std::uint64_t length() const noexcept { return length_; }
    std::uint32_t chunk_size() const noexcept { return chunk_size_; }
    /// Chunks finished so far.
    std::uint64_t chunks() const noexcept { return chunks_; }
    /// The root: ends the last chunk. Call once, after every byte.
    chunk_hash root();

    /// Told each chunk's index and hash as it ends (a new manifest is written from it).
    std::function<void(std::uint64_t index, const chunk_hash&)> on_chunk;

private:
    void end_chunk(const chunk_hash& h);

    std::uint32_t chunk_size_;
    XXH3_state_t* chunk_;
    XXH3_state_t* root_;
    std::uint64_t length_ = 0, in_chunk_ = 0, chunks_ = 0;
};

}  // namespace rdelta::detail
