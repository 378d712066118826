// rdelta/in_place.hpp - applying a delta to its basis file in place, crash-safely
// with an undo journal (rdelta/journal.hpp).
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>
#include <rdelta/io.hpp>
#include <rdelta/job.hpp>
#include <rdelta/patch.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace rdelta {

class history;
class journal_storage;
class manifest_storage;

/// What an in-place patch with a delta that has no checksum trailer made of a file.
/// Such a delta cannot tell its basis from its output, so applying it twice would
/// corrupt the file silently; the file remembers it instead.
struct RDELTA_API applied_delta {
    std::array<std::uint8_t, 16> digest{};   ///< XXH3-128 of the delta's bytes
    std::uint64_t size = 0;                  ///< the file's size after it
    std::int64_t mtime_s = 0, mtime_ns = 0;  ///< the modification time it gave the file
};

/// A file that is both the basis and the output of an in-place patch.
class RDELTA_API in_place_file {
public:
    virtual ~in_place_file() = default;
    /// Current size in bytes.
    virtual std::uint64_t size() const = 0;
    /// Read up to out.size() bytes at `pos`; the count, 0 at the end.
    virtual result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) = 0;
    /// Write all of `bytes` at `pos`.
    virtual result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) = 0;
    /// Set the size (the new file may be shorter or longer than the basis).
    virtual result<void> resize(std::uint64_t size) = 0;
    /// True when [pos, pos + len) is known to read as zeros without being stored
    /// (a hole): copying zeros onto a hole then writes nothing, and is not read.
    virtual bool is_hole(std::uint64_t /*pos*/, std::uint64_t /*len*/) { return false; }
    /// The run starting at `pos`, at most `limit` bytes long, that is all hole
    /// (first = true) or all stored data (first = false), and its length (> 0 when
    /// limit > 0). The journal saves holes as holes, so a rollback restores them.
    virtual std::pair<bool, std::uint64_t> extent(std::uint64_t /*pos*/, std::uint64_t limit) { return {false, limit}; }
    /// Make [pos, pos + len) a hole again, keeping the size (a rollback). The
    /// default writes zeros, which restores the bytes but not the allocation.
    virtual result<void> punch_hole(std::uint64_t pos, std::uint64_t len);
    /// Make what was written durable (fsync).
    virtual result<void> sync() { return {}; }
    /// Device and inode numbers, recorded in the journal so that a journal is never
    /// applied to another file; {0, 0} when unknown.
    virtual std::pair<std::uint64_t, std::uint64_t> identity() const { return {0, 0}; }
    /// The file's change time now (ctime: every write, size or metadata change moves
    /// it), seconds and nanoseconds: a manifest written after a patch is believed
    /// only while it is unchanged. {0, 0} when unknown (no manifest is believed).
    virtual std::pair<std::int64_t, std::int64_t> change_time() { return {0, 0}; }
    /// The file's modification time now, seconds and nanoseconds ({0, 0} when
    /// unknown): a restore point records when the version it keeps was written.
    virtual std::pair<std::int64_t, std::int64_t> modification_time() { return {0, 0}; }
    /// Note on the file itself, durably, that the journal `journal` (its name()) can
    /// restore it: from before its first byte is overwritten until it is whole
    /// again, when clear_journal_mark() is called. A reader reaching the file under
    /// another name (renamed after a crash, another hard link) then sees that it is
    /// half patched. The note carries `nonce`, the journal header's, so that only
    /// that journal is ever replayed into the file (journal_binding_of()). An empty
    /// `journal`: the patch keeps none (nothing can restore the file if it is
    /// interrupted). Fails when the note cannot be kept where the file could keep
    /// one: a journal would then look stale to recovery. The default keeps no note.
    virtual result<void> mark_journaled(const std::string& /*journal*/, std::uint64_t /*nonce*/) { return {}; }
    virtual void clear_journal_mark() {}
    /// Whether the file's note binds it to the journal whose header carries `nonce`:
    /// bound (recovery may replay it), stale (no note, or one for another update:
    /// a journal left by an update that had finished, or put back later under the
    /// name; never replayed), or unknown (the file keeps no note: the journal's
    /// name and header alone decide). The default: unknown.
    enum class journal_binding { bound, stale, unknown };
    virtual journal_binding journal_binding_of(std::uint64_t /*nonce*/) { return journal_binding::unknown; }

    /// Whether remember_applied() can keep its record on this file.
    virtual bool can_remember_applied() { return false; }
    /// Record durably, before the patch commits, that the delta `delta.digest` makes
    /// the file `delta.size` bytes long; the file then takes a modification time of
    /// the implementation's choosing (settle_applied()), which the record holds.
    virtual result<void> remember_applied(const applied_delta& /*delta*/) { return {}; }
    /// The record, when the file is unchanged since the patch it describes ended
    /// (its size and modification time are the recorded ones).
    virtual std::optional<applied_delta> last_applied() { return {}; }
    /// Give the file the recorded modification time, once it has the recorded size
    /// (the patch, or the recovery of a committed one, is done).
    virtual void settle_applied() {}
    /// Drop the record (the patch was rolled back).
    virtual void forget_applied() {}
};

/// Opens the delta from its start, once per pass (in-place patching reads it two or
/// three times instead of holding it in memory).
using delta_opener = std::function<result<std::unique_ptr<byte_source>>()>;

/// Options of a journaled in-place patch.
struct RDELTA_API in_place_options {
    patch_options patch;  ///< delta name, --max-output, --verify (take_trailer is not used)
    /// Where the undo journal goes; nullptr writes none (faster, but a crash leaves
    /// the file part old, part new). A journal left by an interrupted run is rolled
    /// back before the patch starts.
    journal_storage* journal = nullptr;
    /// Old regions saved per journal batch before they are overwritten: each batch
    /// costs two journal syncs.
    std::uint64_t batch_bytes = std::uint64_t{64} << 20;
    /// Called now and then while writing: the output offset reached and the new
    /// size (the image's progress, holes included).
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    /// Called after each batch has been journaled and written (1, 2, ...): a hook for
    /// crash tests and for callers that want to watch the commit protocol.
    std::function<void(std::uint64_t batch)> after_batch;
    /// Apply a delta without a checksum trailer to a file that cannot remember it
    /// (in_place_file::can_remember_applied() is false): nothing would then stop the
    /// same delta from being applied twice. Off: such a patch is refused.
    bool allow_unrecorded = false;
    /// The image's chunk manifest (rdelta/manifest.hpp); nullptr keeps none. With a
    /// delta whose trailer is chunked, the patch verifies only the chunks it writes
    /// when the manifest describes the file, and publishes the new one after it
    /// commits; otherwise it reads the whole file, as with a whole-file trailer.
    manifest_storage* manifest = nullptr;
    /// Keep the patch's undo journal as a restore point of this history
    /// (rdelta/history.hpp) instead of deleting it; nullptr keeps none. Needs a
    /// journal. The journal then also saves the bytes past the new end when the
    /// file shrinks, and the image's old root (read from the manifest, or hashed).
    history* keep_history = nullptr;
};

/// What an in-place patch did.
struct RDELTA_API in_place_stats {
    job_stats job;                          ///< as a patch job's (out_bytes = new size)
    bool has_trailer = false;               ///< the delta has a checksum trailer (verified)
    bool recovered = false;                 ///< a journal of an interrupted run was rolled back first
    std::uint64_t image_bytes_written = 0;  ///< bytes written to the file (holes left alone are not)
    std::uint64_t journal_bytes_written = 0;
    std::uint64_t syncs = 0;              ///< fsync/fdatasync calls on the journal and the file
    std::uint64_t verify_bytes_read = 0;  ///< file bytes read to verify the output, before and after writing
    bool manifest_used = false;           ///< unchanged chunks were taken from the manifest, not read
    bool manifest_published = false;      ///< a new manifest describes the patched file
    /// The file's manifest already described the delta's output (same length and
    /// root): nothing was read beyond it, nothing written.
    bool up_to_date = false;
    /// How the basis the delta names (its "rdcb" trailer) was checked.
    enum class basis_check {
        no_basis_root,  ///< the delta names none (rdiff's, older rdelta's, or unknown when made)
        no_manifest,    ///< no current manifest of the file to compare it with
        matched,        ///< the file's manifest has that root
    };
    basis_check basis = basis_check::no_basis_root;
    /// Where the time went, in seconds: pass 1 (check the delta), pass 2 (hash the
    /// would-be output), the journaled writes (with the image's sync), reading back
    /// what was written, and the commit (journal, truncation, point, manifest).
    struct phase_seconds {
        double check = 0, verify_before = 0, write = 0, verify_after = 0, commit = 0;
    };
    phase_seconds seconds;
    /// With keep_history: the sequence number of the point kept (0: none).
    std::uint64_t point_kept = 0;
    std::uint64_t point_bytes = 0;  ///< its file's size
};

/// Apply the delta to `file` in place, writing only the regions that change (COPY
/// commands to the same offset write nothing, nor do zeros onto a hole).
/// Pass 1 checks the whole delta: it must be well formed, every COPY must lie in the
/// basis and must not read a region an earlier command overwrote (or that its own
/// write would overwrite first); else nothing is written and the result is
/// param_error ("cannot be applied in place"; deltas made with `rdelta delta
/// --in-place-safe` always can) or the decoding error rdiff gives. With a checksum
/// trailer, pass 2 computes what the output will be and compares it before writing
/// (so a delta already applied is refused, corrupt). Then the file is written; with a
/// journal, old regions are saved and synced before they are overwritten, the new
/// file is read back and checked against the trailer, and only then is the journal
/// dropped. With a chunked trailer and a manifest that describes the file, both
/// checks read only the chunks the delta writes (in_place_options::manifest). Any failure after the first write rolls
/// the file back to its old bytes (holes included) when the journal allows it. Memory is bounded (a few tens of MiB)
/// whatever the sizes.
RDELTA_API result<in_place_stats> patch_in_place(const delta_opener& open, in_place_file& file,
                                                 const in_place_options& options);

/// The same for a delta held in memory, without a journal.
RDELTA_API result<job_stats> patch_in_place(std::span<const std::uint8_t> delta, in_place_file& file,
                                            const patch_options& options = {});

}  // namespace rdelta
