// posix_util.hpp - small POSIX helpers shared by the file layer's units.
#pragma once

#include <rdelta/error.hpp>

#include <sys/stat.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

namespace rdelta::io_detail {

/// An io_error naming the file: "NAME: WHAT: strerror(err)".
inline error io_fail(const std::string& name, const char* what, int err) {
    return fail(errc::io_error, name + ": " + what + ": " + std::strerror(err));
}

/// Size of a regular file or a block device (a device is read like a file of its
/// size; rdiff treats it as a stream), -1 for pipes and the like.
std::int64_t random_access_size(int fd, const struct stat& st);

/// True when [pos, pos + len) of `fd` lies in a hole (SEEK_DATA finds no data in it)
/// within the file's current size. For inputs: bytes past a new end are missing.
bool hole_at(int fd, std::uint64_t pos, std::uint64_t len);

/// The same, but bytes past the end count as a hole: for a file rdelta itself is
/// writing, whose length is set once the zeros at its end are skipped.
bool hole_or_past_end(int fd, std::uint64_t pos, std::uint64_t len);

/// The name of the undo journal of the file named `base`, in its folder:
/// `.NAME.rdelta-journal`, or `.rdelta-journal-HASH` when that would be too long.
std::string journal_name(const std::string& base);

/// The folder and path of the undo journal of an in-place patch of `image_path`:
/// `.NAME.rdelta-journal` beside the file (a symlink's target), or
/// `.rdelta-journal-HASH` when that name would be too long.
std::pair<std::string, std::string> journal_path(const std::string& image_path);

/// Whether the journal file `journal` is one rdelta could have made for the file
/// open as `image_fd` with status `st` (see trusted_file.hpp) and counts for it:
/// a valid header names that file (device and inode) and the file's note does not
/// say it is a stale one (update_marker.hpp), or its header was written but is
/// damaged (recovery refuses it: the file may be torn).
bool journal_of_file(const std::string& journal, int image_fd, const struct stat& st);
/// The same for the open journal `journal_fd`, whoever made it.
bool journal_names_file(int journal_fd, int image_fd, const struct stat& st);

/// The temporary output being written, removed by the cleanup signal handlers
/// (one at a time; async-signal-safe).
void register_temp(const std::string& path);
void unregister_temp();

/// While one exists, the cleanup signals do not end the process: the first one is
/// remembered and acted on (temporary output removed, death by that signal) when
/// the last deferral ends. For a step that must not stop halfway, such as
/// rewriting an existing file's inode. Without install_cleanup_handlers() it does
/// nothing.
class signal_deferral {
public:
    signal_deferral();
    ~signal_deferral();
    signal_deferral(const signal_deferral&) = delete;
    signal_deferral& operator=(const signal_deferral&) = delete;
};

}  // namespace rdelta::io_detail
