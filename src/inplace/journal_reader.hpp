// journal_reader.hpp - reading an undo journal (docs/format.md): its header slots
// and its records, every one checked before any is used. Recovery replays them;
// a restore point (history/) is such a journal kept.
#pragma once

#include "journal_format.hpp"

#include <rdelta/journal.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace rdelta::detail {

/// A record found valid: its data starts at `at` in the journal.
struct record_ref {
    std::uint64_t at;
    std::uint32_t kind;
    std::uint64_t pos, len;
};

/// The newest valid header slot, if any became valid, and whether any slot holds
/// a byte at all (a journal is created with its header area zeroed).
struct header_slots {
    std::optional<journal_header> newest;
    bool blank = true;
};

result<header_slots> read_header_slots(journal_storage& j);

/// Every record up to the header's records end, each checked (kind, index, length,
/// within the old size, checksum) and the count compared: corrupt, naming the
/// record, on the first that fails.
result<std::vector<record_ref>> validate(journal_storage& j, const journal_header& h);

/// Read exactly out.size() bytes at `pos`: corrupt ("`what` is cut short") at the end.
result<void> read_exact(journal_storage& j, std::uint64_t pos, std::span<std::uint8_t> out, const char* what);

}  // namespace rdelta::detail
