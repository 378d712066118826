// journal_writer.hpp - saving old regions of an image to its undo journal, in the
// order that makes a crash at any instant recoverable (see docs/format.md):
// records, sync, then a header naming them valid, sync, and only then may the
// caller overwrite those regions.
#pragma once

#include "journal_format.hpp"
#include "point_format.hpp"

#include <rdelta/journal.hpp>

#include <cstdint>
#include <vector>

namespace rdelta::detail {

class journal_writer {
public:
    /// `flags`: journal_manifest_current when the image's manifest describes it
    /// exactly now (checked before begin(), whose note changes the file's ctime).
    journal_writer(journal_storage& storage, in_place_file& image, std::uint32_t flags = 0);

    /// Create the journal (not valid yet: a crash now leaves one that is deleted).
    /// The image's note binding it to the journal is set by the first make_durable().
    result<void> begin();
    /// Save the old content of [pos, pos + len) (the part before the old end):
    /// data as bytes, holes as holes; and, when the region reaches past an
    /// unaligned old end into the block holding it, that block's old hole.
    result<void> save(std::uint64_t pos, std::uint64_t len);
    /// Make the records saved so far durable and valid: after this, the regions may
    /// be overwritten.
    result<void> make_durable();
    /// The new file is complete and checked: a recovery now finishes the patch
    /// (sets the size to `new_size`) rather than rolling it back.
    /// With `point`, its footer is written past the last record first (the patch
    /// keeps history): the commit makes both durable.
    result<void> commit(std::uint64_t new_size, point_footer* point = nullptr);

    std::uint64_t bytes_written() const noexcept { return written_; }
    std::uint64_t syncs() const noexcept { return syncs_; }

private:
    result<void> put(std::span<const std::uint8_t> bytes);
    result<void> add_record(std::uint32_t kind, std::uint64_t pos, std::uint64_t len,
                            std::span<const std::uint8_t> data);
    result<void> write_header();
    result<void> save_end_block(std::uint64_t pos, std::uint64_t len);

    journal_storage& storage_;
    in_place_file& image_;
    journal_header header_;
    std::uint64_t end_ = journal_records_at;  // where the next record goes
    std::uint64_t count_ = 0;                 // records written (durable or not)
    bool published_ = false;
    bool end_block_saved_ = false;  // the old end's block (save_end_block) needs saving once
    std::vector<std::uint8_t> buf_;
    std::uint64_t written_ = 0, syncs_ = 0;
};

}  // namespace rdelta::detail
