// sticky_folder.hpp - the kernel's rules for shared sticky folders (/tmp and the
// like), applied by rdelta itself whatever fs.protected_symlinks,
// fs.protected_regular and fs.protected_fifos say: rdelta follows an output's
// symlinks itself and opens existing streams without O_CREAT, so the kernel's own
// checks never see them, and a run as root would write where another user chose.
#pragma once

#include <sys/stat.h>
#include <string>

namespace rdelta::io_detail {

/// Whether the folder with status `dir` is sticky and others may create names in
/// it (world-writable, or group-writable as protected_regular=2 counts it): anyone
/// there can plant a name the caller then opens.
bool shared_sticky(const struct stat& dir);

/// Why the symlink with status `link`, found in the folder with status `dir`,
/// may not be followed, or "" when it may: in a shared sticky folder only the
/// caller's and the folder owner's symlinks are (the kernel's protected_symlinks).
std::string unfollowable_because(const struct stat& link, const struct stat& dir);

/// Why the existing file with status `file`, found in the folder with status `dir`,
/// may not be written, or "" when it may: in a shared sticky folder a regular file
/// or FIFO must be the caller's or the folder owner's (the kernel's
/// protected_regular and protected_fifos).
std::string unwritable_because(const struct stat& file, const struct stat& dir);

}  // namespace rdelta::io_detail
