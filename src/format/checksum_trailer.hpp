// checksum_trailer.hpp - rdelta's optional checksum of the new file after a delta's END.
//
// Two forms (docs/format.md, "Checksum trailer"); rdiff ignores bytes after END, so a
// delta with either still applies with rdiff:
// - whole-file (version 1, read only): the tag "rdck" (0x7264636b), the new file's
//   length (u64, big-endian) and its XXH3-128 (16 bytes, canonical big-endian): 28 bytes.
// - chunked (written since): the tag "rdcm" (0x7264636d), the length (u64), the chunk
//   size (u32, 65536 in this version: bytes naming another size are no trailer) and
//   the root over the chunk hashes (chunk_hasher.hpp): 32 bytes. An
//   in-place patch then verifies only the chunks it writes against the image's manifest.
// - chunked with basis: the tag "rdcb" (0x72646362), the chunked form's fields, then
//   the root of the basis the delta was made for (16 bytes): 48 bytes. An in-place
//   patch compares it with the image's manifest before writing, so a delta made for
//   another version of the image is refused.
#pragma once

#include "chunk_hasher.hpp"
#include "netint.hpp"

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace rdelta::detail {

inline constexpr std::uint32_t trailer_tag = 0x7264636bu;
inline constexpr std::uint32_t chunk_trailer_tag = 0x7264636du;
inline constexpr std::size_t whole_trailer_size = 28;
inline constexpr std::uint32_t basis_trailer_tag = 0x72646362u;
inline constexpr std::size_t chunk_trailer_size = 32;
inline constexpr std::size_t basis_trailer_size = 48;
inline constexpr std::size_t max_trailer_size = 48;

/// The size of the trailer the bytes after END start with, 0 when they start none.
inline std::size_t trailer_size_at(const std::uint8_t* p, std::size_t n) noexcept {
    if (n >= whole_trailer_size && get_be32(p) == trailer_tag) return whole_trailer_size;
    if (n >= chunk_trailer_size && get_be32(p) == chunk_trailer_tag && get_be(p + 12, 4) == default_chunk_size)
        return chunk_trailer_size;
    if (n >= basis_trailer_size && get_be32(p) == basis_trailer_tag && get_be(p + 12, 4) == default_chunk_size)
        return basis_trailer_size;
    return 0;
}
inline bool is_trailer(const std::uint8_t* p, std::size_t n) noexcept {
    return trailer_size_at(p, n) != 0;
}
/// Both chunked forms: with or without the basis's root.
inline bool is_chunk_trailer(const std::uint8_t* p, std::size_t n) noexcept {
    const std::size_t size = trailer_size_at(p, n);
    return size == chunk_trailer_size || size == basis_trailer_size;
}
/// The root of the basis a trailer names (the "rdcb" form), nullopt for the others.
inline std::optional<chunk_hash> trailer_basis_root(const std::uint8_t* p, std::size_t n) noexcept {
    if (trailer_size_at(p, n) != basis_trailer_size) return std::nullopt;
    chunk_hash root;
    std::memcpy(root.data(), p + chunk_trailer_size, root.size());
    return root;
}
/// The root of the new file a chunked trailer gives.
inline chunk_hash trailer_root(const std::uint8_t* p) noexcept {
    chunk_hash root;
    std::memcpy(root.data(), p + 16, root.size());
    return root;
}
/// The new file's length a trailer gives (both forms keep it at byte 4).
inline std::uint64_t trailer_length(const std::uint8_t* p) noexcept {
    return get_be(p + 4, 8);
}
inline std::uint32_t trailer_chunk_size(const std::uint8_t* p) noexcept {
    return static_cast<std::uint32_t>(get_be(p + 12, 4));
}

/// The checksum of a byte stream fed in pieces, in one or both trailer forms.
class stream_checksum {
public:
    enum form { whole = 1, chunked = 2, both = 3 };
    explicit stream_checksum(form f = chunked, std::uint32_t chunk_size = default_chunk_size)
        : whole_(f & whole ? XXH3_createState() : nullptr) {
        if (whole_) XXH3_128bits_reset(whole_);
        if (f & chunked) chunks_.emplace(chunk_size);
    }
    ~stream_checksum() { XXH3_freeState(whole_); }
    stream_checksum(const stream_checksum&) = delete;
    stream_checksum& operator=(const stream_checksum&) = delete;

    void update(const std::uint8_t* p, std::size_t n) {
        if (n == 0) return;
        if (whole_) XXH3_128bits_update(whole_, p, n);
        if (chunks_) chunks_->update(p, n);
        length_ += n;
    }
    void update_zeros(std::uint64_t n) {
        if (whole_) {
            static const std::uint8_t zeros[1 << 16] = {};
            for (std::uint64_t left = n; left > 0;) {
                const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(left, sizeof zeros));
                XXH3_128bits_update(whole_, zeros, k);
                left -= k;
            }
        }
        if (chunks_) chunks_->update_zeros(n);
        length_ += n;
    }
    std::uint64_t length() const noexcept { return length_; }
    /// The chunk hasher (chunked form), for known chunks and a manifest.
    chunk_hasher* chunks() noexcept { return chunks_ ? &*chunks_ : nullptr; }
    /// A whole chunk whose hash is known (chunked form only).
    void add_known(const chunk_hash& h, std::uint64_t len) {
        chunks_->add_known(h, len);
        length_ += len;
    }

    /// The XXH3-128 of the whole stream (whole form).
    chunk_hash digest() const noexcept {
        XXH128_canonical_t c;
        XXH128_canonicalFromHash(&c, XXH3_128bits_digest(whole_));
        chunk_hash out;
        std::memcpy(out.data(), c.digest, out.size());
        return out;
    }
    /// The size of the trailer write_trailer() writes.
    static std::size_t trailer_size(bool chunked, const std::optional<chunk_hash>& basis) noexcept {
        return !chunked ? whole_trailer_size : basis ? basis_trailer_size : chunk_trailer_size;
    }
    /// Write the trailer (the chunked form when computed, naming `basis` when given)
    /// to `out` (trailer_size() bytes of room); its size. Ends the stream.
    std::size_t write_trailer(std::uint8_t* out, const std::optional<chunk_hash>& basis = std::nullopt) {
        put_be(out + 4, length_, 8);
        if (chunks_) {
            put_be(out, basis ? basis_trailer_tag : chunk_trailer_tag, 4);
            put_be(out + 12, chunks_->chunk_size(), 4);
            root_ = root_ ? root_ : chunks_->root();
            std::memcpy(out + 16, root_->data(), 16);
            if (!basis) return chunk_trailer_size;
            std::memcpy(out + chunk_trailer_size, basis->data(), 16);
            return basis_trailer_size;
        }
        put_be(out, trailer_tag, 4);
        const chunk_hash d = digest();
        std::memcpy(out + 12, d.data(), 16);
        return whole_trailer_size;
    }
    /// Whether the stream matches `trailer` (either form, when computed). Ends the stream.
    bool matches(const std::uint8_t* trailer, std::size_t n) {
        const std::size_t size = trailer_size_at(trailer, n);
        if (size == 0 || trailer_length(trailer) != length_) return false;
        if (size == whole_trailer_size) {
            if (!whole_) return false;
            const chunk_hash d = digest();
            return std::memcmp(trailer + 12, d.data(), 16) == 0;
        }
        if (!chunks_ || trailer_chunk_size(trailer) != chunks_->chunk_size()) return false;
        root_ = root_ ? root_ : chunks_->root();
        return std::memcmp(trailer + 16, root_->data(), 16) == 0;
    }

private:
    XXH3_state_t* whole_;
    std::optional<chunk_hasher> chunks_;
    std::optional<chunk_hash> root_;
    std::uint64_t length_ = 0;
};

/// The form a stream must be hashed in to check `trailer` (both when unknown).
inline stream_checksum::form form_for(const std::uint8_t* trailer, std::size_t n) noexcept {
    const std::size_t size = trailer_size_at(trailer, n);
    return size == whole_trailer_size     ? stream_checksum::whole
           : is_chunk_trailer(trailer, n) ? stream_checksum::chunked
                                          : stream_checksum::both;
}
inline std::uint32_t chunk_size_for(const std::uint8_t* trailer, std::size_t n) noexcept {
    return is_chunk_trailer(trailer, n) ? trailer_chunk_size(trailer) : default_chunk_size;
}

/// The message for an output that does not match `trailer` (its length or hash).
inline std::string trailer_mismatch(std::uint64_t output_len, const std::uint8_t* trailer) {
    return "the patched output (" + std::to_string(output_len) +
           " bytes) does not match the delta's checksum trailer (" + std::to_string(trailer_length(trailer)) +
           " bytes, XXH3-128): wrong basis or damaged delta";
}

}  // namespace rdelta::detail
