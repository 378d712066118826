// zstd_frames.cpp - the frame walk: read each small field (magic, header descriptor,
// block header, skippable size) and skip the bytes it says follow.
#include "zstd_frames.hpp"

#include <algorithm>

namespace rdelta::detail {

namespace {

constexpr std::uint32_t frame_magic = 0xFD2FB528;
constexpr std::uint32_t skippable_magic = 0x184D2A50;  // low 4 bits are free
constexpr std::uint32_t rle_block = 1, reserved_block = 3;
constexpr std::uint64_t checksum_size = 4;

std::uint32_t little_endian(const std::uint8_t* p, std::size_t n) noexcept {
    std::uint32_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = v << 8 | p[i];
    return v;
}

/// The frame header's bytes after its descriptor (RFC 8878, 3.1.1.1).
std::uint64_t header_rest(std::uint8_t descriptor) noexcept {
    static constexpr std::uint64_t dictionary_id_size[] = {0, 1, 2, 4};
    static constexpr std::uint64_t content_size_size[] = {0, 2, 4, 8};
    const bool single_segment = descriptor >> 5 & 1;
    const unsigned content_size_flag = descriptor >> 6;
    const std::uint64_t window = single_segment ? 0 : 1;
    const std::uint64_t content = content_size_flag == 0 && single_segment ? 1 : content_size_size[content_size_flag];
    return window + dictionary_id_size[descriptor & 3] + content;
}

}  // namespace

void zstd_frame_tracker::feed(const std::uint8_t* p, std::size_t n) noexcept {
    while (n > 0 && part_ != part::lost) {
        if (skip_ > 0) {
            const auto step = static_cast<std::size_t>(std::min<std::uint64_t>(skip_, n));
            skip_ -= step, p += step, n -= step;
            continue;
        }
        field_[field_have_++] = *p++, --n;
        if (field_have_ == field_size_) field_done();
    }
}

bool zstd_frame_tracker::complete() const noexcept {
    return part_ == part::lost || (part_ == part::magic && field_have_ == 0 && skip_ == 0);
}

void zstd_frame_tracker::expect(part p, std::size_t size) noexcept {
    part_ = p, field_size_ = size, field_have_ = 0;
}

void zstd_frame_tracker::field_done() noexcept {
    const std::uint32_t value = little_endian(field_, field_size_);
    switch (part_) {
        case part::magic:
            if (value == frame_magic) return expect(part::descriptor, 1);
            if ((value & ~0xFu) == skippable_magic) return expect(part::skippable_size, 4);
            return expect(part::lost, 0);
        case part::descriptor:
            if (value & 0x08) return expect(part::lost, 0);  // reserved bit: zstd rejects it
            checksum_ = value >> 2 & 1;
            skip_ = header_rest(field_[0]);
            return expect(part::block_header, 3);
        case part::block_header: {
            const std::uint32_t type = value >> 1 & 3;
            if (type == reserved_block) return expect(part::lost, 0);
            skip_ = type == rle_block ? 1 : value >> 3;
            if (!(value & 1)) return expect(part::block_header, 3);
            // The last block: the frame ends after it and its checksum.
            skip_ += checksum_ ? checksum_size : 0;
            return expect(part::magic, 4);
        }
        case part::skippable_size: skip_ = value; return expect(part::magic, 4);
        case part::lost: return;
    }
}

}  // namespace rdelta::detail
