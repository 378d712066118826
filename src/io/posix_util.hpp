// posix_util.hpp - small POSIX helpers shared by the file layer's units.
#pragma once

#include <rdelta/error.hpp>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/stat.h>

namespace rdelta::io_detail {

/// An io_error naming the file: "NAME: WHAT: strerror(err)".
inline error io_fail(const std::string& name, const char* what, int err) {
    return fail(errc::io_error, name + ": " + what + ": " + std::strerror(err));
}

/// Size of a regular file or a block device (a device is read like a file of its
/// size; rdiff treats it as a stream), -1 for pipes and the like.
std::int64_t random_access_size(int fd, const struct stat& st);

/// True when [pos, pos + len) of `fd` lies in a hole (SEEK_DATA finds no data in it).
bool hole_at(int fd, std::uint64_t pos, std::uint64_t len);

/// The temporary output being written, removed by the cleanup signal handlers
/// (one at a time; async-signal-safe).
void register_temp(const std::string& path);
void unregister_temp();

}  // namespace rdelta::io_detail
