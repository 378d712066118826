// journal_writer.hpp - saving old regions of an image to its undo journal, in the
// order that makes a crash at any instant recoverable (see docs/format.md):
// records, sync, then a header naming them valid, sync, and only then may the
// caller overwrite those regions.
#pragma once

#include <rdelta/journal.hpp>

#include <cstdint>
#include <vector>

namespace rdelta::detail {

// The journal's layout; all integers big-endian.
inline constexpr std::uint32_t journal_magic = 0x72646a6eu;  // "rdjn"
inline constexpr std::uint32_t journal_version = 1;
inline constexpr std::uint64_t journal_slot_at[2] = {0, 512};  // two header copies, in separate sectors
inline constexpr std::size_t journal_header_size = 88;
inline constexpr std::uint64_t journal_records_at = 4096;
inline constexpr std::size_t journal_record_head = 40;
inline constexpr std::uint64_t journal_max_record_data = std::uint64_t{1} << 20;
inline constexpr std::uint64_t journal_block = 4096;  // holes are whole blocks
enum : std::uint32_t { journal_hot = 1, journal_committed = 2 };
enum : std::uint32_t { record_data = 1, record_hole = 2 };

struct journal_header {
    std::uint64_t seq = 0;
    std::uint32_t state = journal_hot;
    std::uint64_t nonce = 0, dev = 0, ino = 0;
    std::uint64_t old_size = 0, new_size = 0;
    std::uint64_t records_end = journal_records_at, record_count = 0;
};

void encode_header(const journal_header& h, std::uint8_t out[journal_header_size]);
/// False when the bytes are not a whole, valid header slot (torn, never written).
bool decode_header(const std::uint8_t in[journal_header_size], journal_header& h);
/// The checksum of a record: its head (checksum field excluded) and data, seeded with the nonce.
std::uint64_t record_checksum(std::uint64_t nonce, const std::uint8_t head[32], std::span<const std::uint8_t> data);

class journal_writer {
public:
    journal_writer(journal_storage& storage, in_place_file& image);

    /// Create the journal (not valid yet: a crash now leaves one that is deleted).
    result<void> begin();
    /// Save the old content of [pos, pos + len) (the part before the old end):
    /// data as bytes, holes as holes.
    result<void> save(std::uint64_t pos, std::uint64_t len);
    /// Make the records saved so far durable and valid: after this, the regions may
    /// be overwritten.
    result<void> make_durable();
    /// The new file is complete and checked: a recovery now finishes the patch
    /// (sets the size to `new_size`) rather than rolling it back.
    result<void> commit(std::uint64_t new_size);

    std::uint64_t bytes_written() const noexcept { return written_; }
    std::uint64_t syncs() const noexcept { return syncs_; }

private:
    result<void> put(std::span<const std::uint8_t> bytes);
    result<void> add_record(std::uint32_t kind, std::uint64_t pos, std::uint64_t len,
                            std::span<const std::uint8_t> data);
    result<void> write_header();

    journal_storage& storage_;
    in_place_file& image_;
    journal_header header_;
    std::uint64_t end_ = journal_records_at;  // where the next record goes
    std::uint64_t count_ = 0;                 // records written (durable or not)
    bool published_ = false;
    std::vector<std::uint8_t> buf_;
    std::uint64_t written_ = 0, syncs_ = 0;
};

}  // namespace rdelta::detail
