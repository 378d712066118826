// point_format.hpp - the footer that makes a committed undo journal a restore
// point (docs/format.md, "Restore points"): written just past the journal's last
// record before the commit header, so the commit makes both durable at once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

inline constexpr std::uint32_t point_magic = 0x72646870u;  // "rdhp"
inline constexpr std::uint32_t point_version = 1;
inline constexpr std::size_t point_footer_size = 128;

struct point_footer {
    std::int64_t time_s = 0, time_ns = 0;  // the old image's modification time
    std::int64_t kept_s = 0;               // when the patch ran
    std::uint64_t old_size = 0, new_size = 0;
    std::uint32_t chunk_size = 0;
    std::array<std::uint8_t, 16> old_root{}, new_root{}, delta{};
    std::uint64_t records_end = 0, record_count = 0;
};

/// The footer's bytes; its checksum is seeded with the journal's nonce, binding it
/// to that journal.
void encode_footer(const point_footer& f, std::uint64_t nonce, std::uint8_t out[point_footer_size]);
/// False when the bytes are not a whole, valid footer of the journal with `nonce`.
bool decode_footer(const std::uint8_t in[point_footer_size], std::uint64_t nonce, point_footer& f);

}  // namespace rdelta::detail
