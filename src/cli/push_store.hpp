// push_store.hpp - the signature `rdelta push` keeps of what the remote holds,
// FILE, with FILE.lock and FILE.next beside it.
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
    /// Open the folder of the store `path`, check it (owned by the caller or
    /// root; writable by nobody else unless sticky), lock FILE.lock and remove a
    /// dead run's FILE.next. Errors (io_error) name the file and the reason; a lock
    /// another push holds says "locked".
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
    posix_io::unique_fd folder_, lock_, next_;
    bool next_named_ = false;  // next_ is FILE.next already (no O_TMPFILE here)
};

}  // namespace rdelta::cli
