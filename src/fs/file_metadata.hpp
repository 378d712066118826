// file_metadata.hpp - carrying a replaced file's owner, permissions, ACLs and
// extended attributes over to the file that replaces it.
#pragma once

#include <rdelta/error.hpp>

#include <sys/stat.h>
#include <string>

namespace rdelta::io_detail {

/// Give the file open as `fd` the owner, group and permission bits of `old`
/// (status of the file it replaces), without setuid and setgid: the new content
/// was not vetted by whoever made the old file privileged. Errors name `name`.
result<void> carry_owner_and_mode(int fd, const struct stat& old, const std::string& name);

/// Copy the extended attributes of the file at `old_path` (POSIX ACLs are the
/// system.posix_acl_* attributes) to `fd`. Attributes this filesystem or caller
/// cannot set are skipped; the returned text names them ("" when all were copied).
std::string carry_xattrs(const std::string& old_path, int fd);

}  // namespace rdelta::io_detail
