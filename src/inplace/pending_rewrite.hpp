// pending_rewrite.hpp - the staging file of an inode rewrite under a name that
// recovery can find, so an interrupted rewrite is finished, not repaired by hand.
#pragma once

#include "fs/trusted_file.hpp"

#include <rdelta/error.hpp>

#include <sys/stat.h>
#include <string>

namespace rdelta::io_detail {

/// Where the complete output waits while the file `folder`/`base` (status `st`) is
/// rewritten from it: `.BASE.rdelta-rewrite` beside the file when the staging file
/// is there too, else `.rdelta-rewrite-DEV-INO` in `staging_folder` ($TMPDIR).
std::string pending_rewrite_path(const std::string& staging_folder, const std::string& folder, const std::string& base,
                                 const struct stat& st);

/// Move the complete staging file `temp` to `pending` (replacing the staging file
/// of an earlier interrupted rewrite, which this output supersedes) and set
/// `temp` to it. Returns false where that name cannot be taken (a file of someone
/// else's in a sticky folder): `temp` is then renamed, if it can be, to
/// `pending`-XXXXXX, a name no sweep of stale temporary files removes, and the
/// rewrite goes ahead from it.
bool take_pending_name(std::string& temp, const std::string& pending);

/// The staging file an interrupted rewrite of `target` (a path with no symlinks
/// left, status `st`) left beside it or in $TMPDIR (or /tmp), or "". A name owned
/// by anyone but a trusted_owner() is not one.
std::string find_pending_rewrite(const std::string& target, const struct stat& st);

/// The staging file's name beside the file `base`, and in another folder.
std::string staging_name_beside(const std::string& base);
std::string staging_name_elsewhere(const struct stat& st);

}  // namespace rdelta::io_detail
