// journal_format.hpp - the undo journal's layout (docs/format.md): two header
// slots, then records of saved regions; all integers big-endian. The writer is
// journal_writer, recovery journal_recovery, the file journal_file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rdelta::detail {

// The journal's layout; all integers big-endian.
inline constexpr std::uint32_t journal_magic = 0x72646a6eu;  // "rdjn"
inline constexpr std::uint32_t journal_version = 1;
inline constexpr std::uint64_t journal_slot_at[2] = {0, 512};  // two header copies, in separate sectors
inline constexpr std::size_t journal_header_size = 88;
inline constexpr std::uint64_t journal_records_at = 4096;
// The intent, written with the zeros of a new journal: flags (u32), zero (u32) and
// the nonce (u64), so that one that never became valid still says whether the
// manifest described the image as its patch began.
inline constexpr std::uint64_t journal_intent_at = 1024;
inline constexpr std::size_t journal_intent_size = 16;
inline constexpr std::size_t journal_record_head = 40;
inline constexpr std::uint64_t journal_max_record_data = std::uint64_t{1} << 20;
inline constexpr std::uint64_t journal_block = 4096;  // holes are whole blocks
enum : std::uint32_t { journal_hot = 1, journal_committed = 2 };
enum : std::uint32_t { record_data = 1, record_hole = 2 };
/// Header flags (bytes 20..23, zero in journals of earlier versions).
enum : std::uint32_t {
    /// The image's manifest described it exactly when the patch began: recovery
    /// may bring that manifest up to date instead of leaving it stale.
    journal_manifest_current = 1,
};

struct journal_header {
    std::uint64_t seq = 0;
    std::uint32_t state = journal_hot;
    std::uint32_t flags = 0;
    std::uint64_t nonce = 0, dev = 0, ino = 0;
    std::uint64_t old_size = 0, new_size = 0;
    std::uint64_t records_end = journal_records_at, record_count = 0;
};

void encode_header(const journal_header& h, std::uint8_t out[journal_header_size]);
/// False when the bytes are not a whole, valid header slot (torn, never written).
bool decode_header(const std::uint8_t in[journal_header_size], journal_header& h);
/// The checksum of a record: its head (checksum field excluded) and data, seeded with the nonce.
std::uint64_t record_checksum(std::uint64_t nonce, const std::uint8_t head[32], std::span<const std::uint8_t> data);

}  // namespace rdelta::detail
