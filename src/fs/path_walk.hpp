// path_walk.hpp - opening a file that will be written in place, once, with the
// folder it is in held as a descriptor.
//
// An in-place patch or a recovery may run as root on a user's file. Resolving the
// name again for each step (open the image, find its journal, finish a rewrite)
// lets someone who can change the folder swap the name for a symlink between two
// steps and have the later one write another file. Here the name is walked one
// component at a time, the file is opened from the folder it was found in, and
// that folder stays open: the journal and staging file beside it are opened
// relative to it, and every write goes through the file's own descriptor.
#pragma once

#include <rdelta/error.hpp>

#include <sys/stat.h>
#include <string>

namespace rdelta::io_detail {

/// A file opened by open_walked(). Owns both descriptors.
struct walked_file {
    int fd = -1;              ///< the file, opened with the flags asked for
    int folder = -1;          ///< the folder it was found in (O_RDONLY | O_DIRECTORY)
    std::string base;         ///< its name in that folder
    std::string folder_name;  ///< that folder's path, for messages
    struct stat st {};        ///< the file's status at open

    walked_file() = default;
    walked_file(walked_file&& o) noexcept;
    walked_file& operator=(walked_file&& o) noexcept;
    ~walked_file();
};

/// Open `path` with `flags` (O_CLOEXEC and O_NOFOLLOW are added), following
/// symlinks as the kernel would, but only those owned by root, the caller or the
/// owner of the file they lead to: a user's symlink never leads a root-run write
/// to a file of someone else. Fails (io_error, naming `path` and `what`) on a
/// component that is missing or changes while it is walked.
result<walked_file> open_walked(const std::string& path, int flags, const char* what);

/// Open `name` in `folder` without following a symlink, as a descriptor to read
/// or write (O_CLOEXEC, O_NOFOLLOW, O_NOCTTY and O_NONBLOCK are added); -1 with
/// errno set when it cannot be.
int open_beside(int folder, const std::string& name, int flags, mode_t mode = 0);

/// The name of the file rdelta keeps beside the file named `base`: "." + base +
/// `suffix` (".rdelta-journal"), or, when that exceeds NAME_MAX, `suffix` + "-" and
/// the 16 hex digits of the XXH3-64 of `base`.
std::string beside_name(const std::string& base, const std::string& suffix);

/// `name` in `folder` ("/" without a doubled slash).
std::string joined(const std::string& folder, const std::string& name);

/// The folder of an absolute or relative path and its last component.
std::pair<std::string, std::string> split_path(const std::string& path);

}  // namespace rdelta::io_detail
