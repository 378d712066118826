// pending_rewrite.hpp - the staging file of an inode rewrite under a name that
// recovery can find, so an interrupted rewrite is finished, not repaired by hand.
#pragma once

#include <rdelta/error.hpp>

#include <string>
#include <sys/stat.h>

namespace rdelta::io_detail {

/// Where the complete output waits while the file `folder`/`base` (status `st`) is
/// rewritten from it: `.BASE.rdelta-rewrite` beside the file when the staging file
/// is there too, else `.rdelta-rewrite-DEV-INO` in `staging_folder` ($TMPDIR).
std::string pending_rewrite_path(const std::string& staging_folder, const std::string& folder, const std::string& base,
                                 const struct stat& st);

/// Move the complete staging file `temp` to `pending` (replacing the staging file
/// of an earlier interrupted rewrite, which this output supersedes). Returns
/// false, leaving `temp` as it is, where the name cannot be taken (a file of
/// someone else's in a sticky folder): the rewrite then goes ahead from `temp`.
bool take_pending_name(const std::string& temp, const std::string& pending);

}  // namespace rdelta::io_detail
