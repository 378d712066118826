// rdelta/in_place_fd.hpp - a file patched in place: opened once through its folder, its
// journal and manifest found beside it, an interrupted rewrite finished.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/journal.hpp>
#include <rdelta/manifest.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace rdelta {

/// A file opened for reading and writing, patched in place.
class RDELTA_API in_place_fd final : public in_place_file {
public:
    /// Open `path` once: its name is walked one component at a time (symlinks
    /// are followed only when owned by root, the caller or the file's owner) and
    /// its folder is kept open, so the journal and staging file beside it are found
    /// through that folder and every write goes to this very file, whatever
    /// happens to the names meanwhile. Refuses (io_error) a file that an in-place
    /// patch without a journal is patching, or left torn when it was interrupted
    /// (nothing can restore it).
    static result<in_place_fd> open(const std::string& path);
    in_place_fd(in_place_fd&& other) noexcept;
    in_place_fd& operator=(in_place_fd&&) = delete;
    ~in_place_fd() override;
    std::uint64_t size() const override;
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) override;
    result<void> resize(std::uint64_t size) override;
    bool is_hole(std::uint64_t pos, std::uint64_t len) override;
    std::pair<bool, std::uint64_t> extent(std::uint64_t pos, std::uint64_t limit) override;
    /// fallocate(PUNCH_HOLE | KEEP_SIZE); zeros where the file system cannot.
    result<void> punch_hole(std::uint64_t pos, std::uint64_t len) override;
    result<void> sync() override;
    std::pair<std::uint64_t, std::uint64_t> identity() const override;
    std::pair<std::int64_t, std::int64_t> change_time() override;
    std::pair<std::int64_t, std::int64_t> modification_time() override;
    /// An extended attribute, `user.rdelta.unfinished` (nothing where the file
    /// system keeps none).
    /// (none, and no failure, where the file system keeps none).
    result<void> mark_journaled(const std::string& journal, std::uint64_t nonce) override;
    void clear_journal_mark() override;
    journal_binding journal_binding_of(std::uint64_t nonce) override;
    /// The extended attribute `user.rdelta.applied`; where the file system keeps
    /// no user attributes, can_remember_applied() is false.
    bool can_remember_applied() override;
    result<void> remember_applied(const applied_delta& delta) override;
    std::optional<applied_delta> last_applied() override;
    void settle_applied() override;
    void forget_applied() override;
    const std::string& name() const noexcept;
    /// Take an exclusive flock() on the file, held until it is closed: two in-place
    /// patches (or a patch and a recovery) of one image must never overlap.
    result<void> lock();

private:
    friend result<std::unique_ptr<journal_storage>> open_journal_file(const in_place_fd& image);
    friend result<std::string> finish_interrupted_rewrite(in_place_fd& image);
    friend result<std::unique_ptr<manifest_storage>> open_manifest_file(const in_place_fd& image);
    friend class history;
    in_place_fd();
    struct state;  // its descriptors, names and identity (src/inplace/in_place_fd_state.hpp)
    std::unique_ptr<state> s_;
};

/// Finish a rewrite of `path` (see output_file) that was cut short: when its
/// staging file is there (the one the file names in its `user.rdelta.unfinished`
/// attribute, so `path` may be any of its names, else `.NAME.rdelta-rewrite` beside
/// the file the name leads to, or `.rdelta-rewrite-DEV-INO` in $TMPDIR, or /tmp),
/// copy it into the file,
/// fsync the file and delete it. Returns the staging file's name, or "" when there
/// is none. A staging file is followed only when it is a regular file with one
/// link, owned by the caller, the file's owner or root, writable by its owner
/// alone, and tagged for this very file (device and inode, where its file system
/// keeps user attributes); otherwise it is refused and both are left alone
/// (io_error), as is a file another rdelta holds locked.
RDELTA_API result<std::string> finish_interrupted_rewrite(const std::string& path);
/// The same through an image already open (and locked by the caller).
RDELTA_API result<std::string> finish_interrupted_rewrite(in_place_fd& image);

}  // namespace rdelta
