// journal_recovery.cpp - rolling an interrupted in-place patch back from its undo
// journal (or finishing one that had committed), and the in-memory journal.
//
// Everything is validated before anything is changed: a journal that does not
// check out as a whole fails with corrupt and the image is left as it is, so a
// damaged journal never "restores" garbage. Records are applied newest first, as
// a block saved as a hole may have been written again (and saved as data) later.
#include "journal_reader.hpp"
#include "journal_writer.hpp"

#include "manifest_refresh.hpp"
#include "point_format.hpp"

#include "format/netint.hpp"

#include <rdelta/history.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>

namespace rdelta {

using detail::header_slots;
using detail::record_ref;

namespace detail {

result<void> read_exact(journal_storage& j, std::uint64_t pos, std::span<std::uint8_t> out, const char* what) {
    std::size_t got = 0;
    while (got < out.size()) {
        auto r = j.read(pos + got, out.subspan(got));
        if (!r) return std::move(r).err();
        if (*r == 0) return fail(errc::corrupt, j.name() + ": " + what + " is cut short: the journal is damaged");
        got += *r;
    }
    return {};
}

}  // namespace detail

namespace {

using detail::read_exact;

error bad_record(const journal_storage& j, std::uint64_t index, std::uint64_t at, const char* why) {
    char text[240];
    std::snprintf(text, sizeof text,
                  ": record %" PRIu64 " (journal offset %" PRIu64 ") %s: the journal is damaged; nothing was changed",
                  index, at, why);
    return fail(errc::corrupt, j.name() + text);
}

}  // namespace

namespace detail {

result<header_slots> read_header_slots(journal_storage& j) {
    header_slots slots;
    for (const std::uint64_t at : detail::journal_slot_at) {
        std::uint8_t bytes[detail::journal_header_size] = {};
        auto r = j.read(at, bytes);
        if (!r) return std::move(r).err();
        if (std::any_of(bytes, bytes + *r, [](std::uint8_t b) { return b != 0; })) slots.blank = false;
        detail::journal_header h;
        if (*r == sizeof bytes && detail::decode_header(bytes, h) && (!slots.newest || h.seq > slots.newest->seq))
            slots.newest = h;
    }
    return slots;
}

}  // namespace detail

namespace {

// No slot is valid, yet one was written: the header was damaged after it was
// synced (it is synced before the image is written), so the file may be part old,
// part new and nothing says which parts. Only a person can tell.
error damaged_header(const journal_storage& j) {
    return fail(errc::corrupt, j.name() +
                                   ": the journal's header is damaged: the file it journals may be part old, part new; "
                                   "nothing was changed: keep both and restore the file from a copy, or delete the "
                                   "journal if no patch of the file was running");
}

}  // namespace

namespace detail {

result<std::vector<record_ref>> validate(journal_storage& j, const detail::journal_header& h) {
    std::vector<record_ref> refs;
    std::vector<std::uint8_t> data;
    std::uint64_t at = detail::journal_records_at;
    for (std::uint64_t index = 0; at < h.records_end; ++index) {
        std::uint8_t head[detail::journal_record_head];
        if (h.records_end - at < sizeof head) return bad_record(j, index, at, "is cut short");
        if (auto r = read_exact(j, at, head, "a record"); !r) return std::move(r).err();
        const std::uint32_t kind = detail::get_be32(head);
        const std::uint64_t pos = detail::get_be(head + 8, 8), len = detail::get_be(head + 16, 8);
        const bool known =
            (kind == detail::record_data && len <= detail::journal_max_record_data) || kind == detail::record_hole;
        if (!known || detail::get_be(head + 24, 8) != index || len == 0 || pos > UINT64_MAX - len)
            return bad_record(j, index, at, "is not a valid record");
        // A record saves bytes the file had before the patch: it lies within the old size.
        if (pos + len > h.old_size) return bad_record(j, index, at, "lies past the file's old end");
        const std::uint64_t data_len = kind == detail::record_data ? len : 0;
        if (h.records_end - at - sizeof head < data_len) return bad_record(j, index, at, "is cut short");
        data.resize(static_cast<std::size_t>(data_len));
        if (auto r = read_exact(j, at + sizeof head, data, "a record"); !r) return std::move(r).err();
        if (detail::record_checksum(h.nonce, head, data) != detail::get_be(head + 32, 8))
            return bad_record(j, index, at, "fails its checksum");
        refs.push_back({at + sizeof head, kind, pos, len});
        at += sizeof head + data_len;
    }
    if (refs.size() != h.record_count)
        return fail(errc::corrupt, j.name() + ": holds " + std::to_string(refs.size()) + " records, its header says " +
                                       std::to_string(h.record_count) +
                                       ": the journal is damaged; nothing was changed");
    return refs;
}

}  // namespace detail

namespace {

using detail::read_header_slots;
using detail::validate;

result<void> set_size(in_place_file& image, std::uint64_t size) {
    return image.resize(size);
}

}  // namespace

result<void> in_place_file::punch_hole(std::uint64_t pos, std::uint64_t len) {
    static const std::vector<std::uint8_t> zeros(std::size_t{1} << 16, 0);
    const std::uint64_t end = std::min(pos + len, size());  // KEEP_SIZE: nothing past the end
    for (; pos < end;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(zeros.size(), end - pos));
        if (auto w = write(pos, {zeros.data(), n}); !w) return w;
        pos += n;
    }
    return {};
}

bool journal_keeps_point(journal_storage& journal) {
    auto slots = detail::read_header_slots(journal);
    if (!slots || !slots->newest) return false;
    std::uint8_t bytes[detail::point_footer_size];
    detail::point_footer f;
    return detail::read_exact(journal, slots->newest->records_end, bytes, "its footer") &&
           detail::decode_footer(bytes, slots->newest->nonce, f);
}

namespace {

// The regions of the old file a committed patch overwrote, from its records
// (validated as a rollback would); nullopt when they cannot be told.
std::optional<detail::byte_ranges> overwritten_by(journal_storage& journal, const detail::journal_header& h) {
    auto refs = validate(journal, h);
    if (!refs) return std::nullopt;
    detail::byte_ranges out;
    out.reserve(refs->size());
    for (const auto& r : *refs) out.emplace_back(r.pos, r.pos + r.len);
    return out;
}

// A journal that never became valid: whether its intent says the manifest described
// the image as the patch began, and the image's note binds it to this journal (the
// nonce is all there is to tell it from another one: no header vouches for it).
bool began_with_current_manifest(journal_storage& journal, in_place_file& image) {
    std::uint8_t intent[detail::journal_intent_size];
    if (!read_exact(journal, detail::journal_intent_at, intent, "its intent")) return false;
    const std::uint32_t flags = detail::get_be32(intent);
    const std::uint64_t nonce = detail::get_be(intent + 8, 8);
    return (flags & detail::journal_manifest_current) && nonce != 0 &&
           image.journal_binding_of(nonce) == in_place_file::journal_binding::bound;
}

// The manifest after the journal's patch was finished or undone: brought up to
// date when the journal says it described the file when the patch began,
// otherwise emptied if the patch had finished (it describes an older file now).
void refresh_manifest(manifest_storage* manifest, in_place_file& image, const detail::journal_header& h,
                      recovery_action action, std::optional<detail::byte_ranges> overwritten) {
    if (!manifest) return;
    const bool was_current = (h.flags & detail::journal_manifest_current) != 0;
    if (action == recovery_action::rolled_back) {
        if (was_current) (void)detail::restamp_manifest(*manifest, image);
        return;
    }
    if (action != recovery_action::completed) return;
    if (!was_current || !overwritten || !detail::rebase_manifest(*manifest, image, h.old_size, std::move(*overwritten)))
        detail::clear_manifest(*manifest);
}

result<recovery_result> recover(in_place_file& image, journal_storage& journal, history* keep,
                                manifest_storage* manifest) {
    recovery_result done;
    if (!journal.exists()) return done;
    auto slots = read_header_slots(journal);
    if (!slots) return std::move(slots).err();
    if (!slots->newest && !slots->blank) return damaged_header(journal);
    if (!slots->newest) {  // never became valid: the image was not touched
        const bool restamp = manifest && began_with_current_manifest(journal, image);
        image.clear_journal_mark();
        if (restamp) (void)detail::restamp_manifest(*manifest, image);
        if (auto r = journal.remove(); !r) return std::move(r).err();
        done.action = recovery_action::discarded;
        return done;
    }
    const detail::journal_header& h = *slots->newest;
    // A file whose identity is known takes only a journal that names it exactly.
    const auto [dev, ino] = image.identity();
    if (ino != 0 && (h.dev != dev || h.ino != ino))
        return fail(
            errc::corrupt,
            journal.name() + ": belongs to another file than the image (device/inode differ); nothing was changed");
    // The file's note names the journal of the update it is in: another one was
    // left by an update that finished (a crash between dropping the note and
    // deleting the journal) or was put back under the name since. Replaying it
    // would write old bytes over the current file, or cut it to an old size.
    if (image.journal_binding_of(h.nonce) == in_place_file::journal_binding::stale) {
        // A committed patch whose note went before its journal: the image is whole,
        // and a manifest that does not describe it may describe the file before it
        // (the patch stopped before publishing its own): emptied.
        if (manifest && h.state == detail::journal_committed && !detail::manifest_is_current(*manifest, image))
            detail::clear_manifest(*manifest);
        if (auto r = journal.remove(); !r) return std::move(r).err();
        done.action = recovery_action::stale;
        return done;
    }
    std::optional<detail::byte_ranges> overwritten;  // for the manifest, read before the journal moves
    if (h.state == detail::journal_committed) {
        if (manifest && (h.flags & detail::journal_manifest_current)) overwritten = overwritten_by(journal, h);
        if (auto r = set_size(image, h.new_size); !r) return std::move(r).err();
        done.action = recovery_action::completed;
    } else {
        auto refs = validate(journal, h);
        if (!refs) return std::move(refs).err();
        // Truncating first frees what the patch appended (room for the rest on a full disk).
        if (auto r = set_size(image, h.old_size); !r) return std::move(r).err();
        std::vector<std::uint8_t> data;
        for (auto it = refs->rbegin(); it != refs->rend(); ++it) {
            if (it->kind == detail::record_hole) {
                if (auto r = image.punch_hole(it->pos, it->len); !r) return std::move(r).err();
                continue;
            }
            data.resize(static_cast<std::size_t>(it->len));
            if (auto r = read_exact(journal, it->at, data, "a record"); !r) return std::move(r).err();
            if (auto r = image.write(it->pos, data); !r) return std::move(r).err();
            done.bytes_restored += it->len;
        }
        if (auto r = set_size(image, h.old_size); !r) return std::move(r).err();
        done.records = refs->size();
        done.action = recovery_action::rolled_back;
    }
    if (auto r = image.sync(); !r) return std::move(r).err();
    // A patch by a delta without trailer recorded what it makes of the file before
    // it committed: finished, the file takes the recorded time; rolled back, the
    // record goes.
    if (done.action == recovery_action::completed)
        image.settle_applied();
    else
        image.forget_applied();
    // A finished patch that kept history: its journal is the newest point. It is
    // moved before the note goes, so a crash between the two leaves it replayable.
    if (done.action == recovery_action::completed && keep && journal_keeps_point(journal)) {
        auto kept = keep->adopt(journal);
        if (!kept) return std::move(kept).err();
        done.point_kept = kept->seq;
        image.clear_journal_mark();
        refresh_manifest(manifest, image, h, done.action, std::move(overwritten));
        return done;
    }
    // The manifest once the note is gone: dropping it changes the file's ctime.
    image.clear_journal_mark();
    refresh_manifest(manifest, image, h, done.action, std::move(overwritten));
    if (auto r = journal.remove(); !r) return std::move(r).err();
    return done;
}

}  // namespace

result<recovery_result> recover_in_place(in_place_file& image, journal_storage& journal) {
    return recover_in_place(image, journal, nullptr);
}

result<recovery_result> recover_in_place(in_place_file& image, journal_storage& journal, history* keep) {
    return recover_in_place(image, journal, keep, nullptr);
}

result<recovery_result> recover_in_place(in_place_file& image, journal_storage& journal, history* keep,
                                         manifest_storage* manifest) {
    try {
        return recover(image, journal, keep, manifest);
    } catch (const std::bad_alloc&) {
        // The journal is still whole: running recovery again finishes the job.
        return fail(errc::mem_error, journal.name() + ": out of memory while recovering; recovering again finishes it",
                    remedy::recover);
    }
}

result<void> memory_journal::create() {
    bytes.clear();
    present = true;
    return {};
}

result<std::size_t> memory_journal::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    if (pos >= bytes.size()) return std::size_t{0};
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), bytes.size() - pos));
    std::memcpy(out.data(), bytes.data() + pos, n);
    return n;
}

result<void> memory_journal::write(std::uint64_t pos, std::span<const std::uint8_t> b) {
    if (pos + b.size() > bytes.size()) bytes.resize(static_cast<std::size_t>(pos + b.size()));
    if (!b.empty()) std::memcpy(bytes.data() + pos, b.data(), b.size());
    return {};
}

result<void> memory_journal::remove() {
    bytes.clear();
    present = false;
    return {};
}

}  // namespace rdelta
