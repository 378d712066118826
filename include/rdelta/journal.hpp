// rdelta/journal.hpp - the undo journal that makes in-place patching crash-safe,
// and the recovery that rolls an interrupted patch back.
//
// The journal (format: docs/format.md, "In-place journal") holds the old bytes of
// every region an in-place patch overwrites, saved and synced before the region is
// written, plus the file's old size. After a crash at any point, recovery restores
// exactly the old file (holes included) or, once the patch had committed, finishes it.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>
#include <rdelta/in_place.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rdelta {

/// Where a journal's bytes live: a file beside the image, or memory (tests).
class RDELTA_API journal_storage {
public:
    virtual ~journal_storage() = default;
    /// Whether a journal is present.
    virtual bool exists() = 0;
    /// Create it empty (replacing any), not yet durable.
    virtual result<void> create() = 0;
    /// Read up to out.size() bytes at `pos`; the count, 0 at the end.
    virtual result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) = 0;
    virtual result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) = 0;
    /// Make its content durable (fdatasync).
    virtual result<void> sync() = 0;
    /// Make its name durable (fsync of the folder).
    virtual result<void> sync_folder() = 0;
    /// Delete it, durably.
    virtual result<void> remove() = 0;
    /// Whether remove() found the journal's name no longer leading to the journal
    /// it had open (moved away or replaced meanwhile) and so deleted nothing: the
    /// journal, wherever it went, is stale (a later recovery ignores it), and what
    /// is under the name now is not this run's to delete.
    virtual bool moved_away() const { return false; }
    /// Move the journal, whole, to `name` in the folder open as `folder_fd` (a
    /// history keeping it as a restore point): renamed, never replacing a file, and
    /// both folders synced. false when it cannot be renamed there (another file
    /// system, or storage with no name): the caller copies it, then remove()s it.
    virtual result<bool> move_to(int /*folder_fd*/, const std::string& /*name*/) { return false; }
    /// For messages.
    virtual const std::string& name() const = 0;
};

/// The journal file of an image: ".IMAGE.rdelta-journal" in the image's folder (the
/// symlink target's, when IMAGE is a symlink; a shorter name when that one would be
/// too long). When the image itself names the journal of an interrupted patch
/// (in_place_file::mark_journaled(): it was renamed after the crash, or IMAGE is
/// another hard link of it), that journal. Nothing is created until create().
/// The journal is opened through the folder the image was found in, never by
/// name: only a regular file with one link, owned by the caller, the image's owner
/// or root, writable by its owner alone, is followed (io_error otherwise, nothing
/// changed); recovery then also requires its header to name this very file.
RDELTA_API result<std::unique_ptr<journal_storage>> open_journal_file(const std::string& image_path);
class in_place_fd;
/// The same for an image already open: through the folder in_place_fd::open()
/// found it in, whatever has happened to its names since.
RDELTA_API result<std::unique_ptr<journal_storage>> open_journal_file(const in_place_fd& image);

/// A journal kept in memory, for tests and fuzzing (its bytes are public).
class RDELTA_API memory_journal final : public journal_storage {
public:
    bool exists() override { return present; }
    result<void> create() override;
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) override;
    result<void> sync() override { return {}; }
    result<void> sync_folder() override { return {}; }
    result<void> remove() override;
    const std::string& name() const override { return name_; }

    std::vector<std::uint8_t> bytes;
    bool present = false;

private:
    std::string name_ = "journal";
};

/// What recovery found and did.
enum class recovery_action {
    none,         ///< no journal
    discarded,    ///< a journal that never became valid (nothing had been written): deleted
    rolled_back,  ///< the file was restored to its state before the patch
    completed,    ///< the patch had committed: its final size was set
    stale,        ///< a journal of an earlier update of the file (see
                  ///< in_place_file::journal_binding_of()): not replayed, deleted
};

/// The outcome of recover_in_place().
struct RDELTA_API recovery_result {
    recovery_action action = recovery_action::none;
    std::uint64_t records = 0;         ///< regions restored
    std::uint64_t bytes_restored = 0;  ///< old bytes written back
    std::uint64_t point_kept = 0;      ///< a completed patch's point kept: its sequence number
};

/// Roll back (or finish) an interrupted in-place patch of `image` from `journal`,
/// then delete the journal. The journal is validated first: a damaged record (bad
/// checksum after a valid header) or a journal of another file fails with corrupt
/// and changes nothing, as does a journal whose header is damaged (no valid slot,
/// yet not blank). A journal the file's note does not bind to the file is stale:
/// deleted, never replayed. Safe to run again if it is itself interrupted.
RDELTA_API result<recovery_result> recover_in_place(in_place_file& image, journal_storage& journal);

class history;
/// The same, keeping a committed journal that carries a restore point (its patch
/// kept history) as the newest point of `keep` instead of deleting it (nullptr:
/// deleted, the point lost).
RDELTA_API result<recovery_result> recover_in_place(in_place_file& image, journal_storage& journal, history* keep);

class manifest_storage;
/// The same, keeping the image's `manifest` (rdelta/manifest.hpp; nullptr: none)
/// true to the file: after a rollback it names the file's new change time, after a
/// finished patch it is brought up to date by hashing the chunks the patch changed
/// (when it described the file as the patch began), or emptied. A manifest that
/// cannot be written is left as it was, which a scrub reports as stale.
RDELTA_API result<recovery_result> recover_in_place(in_place_file& image, journal_storage& journal, history* keep,
                                                    manifest_storage* manifest);

/// Whether `journal` (committed, or being committed) carries a restore point's
/// footer: the patch that wrote it kept history, so recovery keeps it as a point
/// (rdelta/history.hpp).
RDELTA_API bool journal_keeps_point(journal_storage& journal);

}  // namespace rdelta
