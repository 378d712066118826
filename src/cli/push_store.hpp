// push_store.hpp - the signature `rdelta push` keeps of what the remote holds,
// FILE, with FILE.lock (while a push runs) and FILE.next beside it.
//
// The store may sit in a folder other users can write (a sticky /tmp) while push
// runs as root, so nothing there is taken on its name alone: the folder is opened
// once and checked, every name in it is opened relative to it without following a
// symlink or blocking on a FIFO, names of other users are refused, and the next
// signature is written into a file push itself creates (unnamed where the
// filesystem allows) and renamed over the kept one.
#pragma once

#include "core/posix_io.hpp"

#include <rdelta/error.hpp>

#include <optional>
#include <string>

namespace rdelta::cli {

/// The kept signature's default name: one per image and destination as written,
/// under the user's cache (a lost file only costs one signature fetch); the folders
/// are made, private, when missing. Nothing when there is no $HOME.
std::optional<std::string> default_store(const std::string& image_real, const std::string& dest_text);

class push_store {
public:
    /// FILE.lock, which keeps two pushes of one store from rotating each other's
    /// signatures. It exists only while it is held: the holder removes the name,
    /// then lets the lock go. So a lock counts only while its name still leads to
    /// the locked file; otherwise a push that opened FILE.lock just before the
    /// holder removed it would lock a file no longer named while a third push
    /// locks the new FILE.lock, both holding "the" lock.
    class lock_file {
    public:
        lock_file() = default;
        lock_file(lock_file&& other) noexcept = default;
        lock_file& operator=(lock_file&& other) noexcept;
        lock_file(const lock_file&) = delete;
        lock_file& operator=(const lock_file&) = delete;
        ~lock_file() { release(); }

        /// Open `base` in `folder` (`name` is its path, for messages), created when
        /// missing: a regular file of the caller's, never through a symlink nor
        /// blocking on a FIFO; anything else is refused.
        static result<lock_file> open(int folder, const std::string& base, const std::string& name);

        /// Lock it without waiting: true when held and its name still leads to it,
        /// false when the name was removed or replaced meanwhile (open it again);
        /// an error saying "locked" when another push holds it.
        result<bool> lock();

        /// Remove the name if it still leads to this file and is held, then let go.
        void release() noexcept;

    private:
        posix_io::unique_fd folder_, fd_;
        std::string base_, name_;
        bool held_ = false;
    };

    /// Open the folder of the store `path`, check it (owned by the caller or
    /// root; writable by nobody else unless sticky), lock FILE.lock and remove a
    /// dead run's FILE.next. Errors (io_error) name the file and the reason; a lock
    /// another push holds says "locked". The lock is let go, and FILE.lock
    /// removed, when the store is destroyed.
    static result<push_store> open(const std::string& path);

    const std::string& path() const noexcept { return path_; }

    /// The kept signature open for reading, or a holder of -1 when there is none.
    /// A symlink, a FIFO or anything not a regular file of the caller's is refused.
    result<posix_io::unique_fd> open_kept() const;

    /// Why the kept signature open as `fd` cannot be a signature (not one's magic,
    /// bad header, a length that is not whole records), or "" when it may be one.
    /// A compressed one is left to the delta that decompresses it.
    static std::string not_a_signature(int fd);

    /// Remove the kept signature (unusable, or stale after a failed rotation).
    void drop() const;

    /// An empty file for the next signature (the same one on each call, emptied),
    /// for the delta to write through its descriptor.
    result<int> next();

    /// Flush the next signature and put it in place of the kept one.
    result<void> commit_next();

private:
    push_store() = default;
    result<void> take_lock();
    result<void> clear_next() const;

    std::string path_, base_, folder_name_;
    posix_io::unique_fd folder_, next_;
    lock_file lock_;
    bool next_named_ = false;  // next_ is FILE.next already (no O_TMPFILE here)
};

}  // namespace rdelta::cli
