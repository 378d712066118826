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
