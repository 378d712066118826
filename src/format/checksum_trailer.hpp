// checksum_trailer.hpp - rdelta's optional whole-file check after a delta's END.
//
// 28 bytes: the tag "rdck" (0x7264636b), the new file's length (u64, big-endian)
// and its XXH3-128 (16 bytes, xxHash's canonical big-endian form). rdiff ignores
// bytes after END, so such a delta still applies with rdiff.
#pragma once

#include "netint.hpp"

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace rdelta::detail {

inline constexpr std::uint32_t trailer_tag = 0x7264636bu;
inline constexpr std::size_t trailer_size = 28;

/// XXH3-128 and length of a byte stream, fed in pieces.
class stream_checksum {
public:
    stream_checksum() : state_(XXH3_createState()) { XXH3_128bits_reset(state_); }
    ~stream_checksum() { XXH3_freeState(state_); }
    stream_checksum(const stream_checksum&) = delete;
    stream_checksum& operator=(const stream_checksum&) = delete;

    void update(const std::uint8_t* p, std::size_t n) noexcept {
        if (n) XXH3_128bits_update(state_, p, n);
        length_ += n;
    }
    std::uint64_t length() const noexcept { return length_; }

    /// The trailer for what was fed so far.
    void write_trailer(std::uint8_t out[trailer_size]) const noexcept {
        put_be(out, trailer_tag, 4);
        put_be(out + 4, length_, 8);
        XXH128_canonical_t canonical;
        XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state_));
        std::memcpy(out + 12, canonical.digest, 16);
    }

private:
    XXH3_state_t* state_;
    std::uint64_t length_ = 0;
};

/// The message for an output that does not match `trailer` (its length or hash).
inline std::string trailer_mismatch(std::uint64_t output_len, const std::uint8_t* trailer) {
    return "the patched output (" + std::to_string(output_len) + " bytes) does not match the delta's checksum trailer (" +
           std::to_string(get_be(trailer + 4, 8)) + " bytes, XXH3-128): wrong basis or damaged delta";
}

/// True when the bytes after END start with a trailer tag.
inline bool is_trailer(const std::uint8_t* p, std::size_t n) noexcept {
    return n >= trailer_size && get_be32(p) == trailer_tag;
}

}  // namespace rdelta::detail
