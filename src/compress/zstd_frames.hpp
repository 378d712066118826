// zstd_frames.hpp - notices a zstd stream that ends inside a frame.
//
// Boost.iostreams' zstd_decompressor (1.74) treats the end of its input as the end
// of the data, even in the middle of a frame, so a truncated file would decompress
// "successfully" to a prefix of its content. This walks the frame structure of the
// compressed bytes (RFC 8878: frame headers, block headers and sizes, checksums,
// skippable frames) without decoding anything, so the reader can tell a complete
// stream from a cut one. It is not a decoder: malformed data is left to zstd.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

class zstd_frame_tracker {
public:
    /// The next compressed bytes, in order.
    void feed(const std::uint8_t* p, std::size_t n) noexcept;
    /// False when the bytes so far end inside a frame. Bytes that are not zstd
    /// framing stop the tracking (true): zstd itself reports those.
    bool complete() const noexcept;

private:
    enum class part { magic, descriptor, block_header, skippable_size, lost };
    void field_done() noexcept;
    void expect(part p, std::size_t size) noexcept;

    part part_ = part::magic;
    std::uint8_t field_[4] = {};
    std::size_t field_size_ = 4, field_have_ = 0;
    std::uint64_t skip_ = 0;  // bytes to pass over before the field is read
    bool checksum_ = false;   // the current frame ends with a 4-byte checksum
};

}  // namespace rdelta::detail
