// trusted_file.hpp - when a file found beside an image (a journal, a staging file)
// may be believed: recovery writes what such a file holds into the image, so a file
// anyone else could have made or changed is never followed.
#pragma once

#include <sys/stat.h>
#include <string>

namespace rdelta::io_detail {

/// Whether a journal or staging file owned by `owner` can be rdelta's for `file`:
/// the caller's, the file owner's or root's (in /tmp anyone else can plant one).
bool trusted_owner(uid_t owner, const struct stat& file);

/// Why the file with status `found` cannot be rdelta's journal or staging file for
/// the file with status `image`, or "" when it can: it must be a regular file with
/// one link, owned by a trusted_owner(), and writable by nobody but its owner.
std::string untrusted_because(const struct stat& found, const struct stat& image);

}  // namespace rdelta::io_detail
