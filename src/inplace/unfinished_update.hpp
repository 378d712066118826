// unfinished_update.hpp - a file an in-place patch or an inode rewrite is still
// updating, or left part old, part new when it was interrupted, is not an input.
#pragma once

#include <rdelta/error.hpp>

#include <sys/stat.h>
#include <string>

namespace rdelta::io_detail {

/// Fail (io_error, naming what to do) when the regular file `path`, open as `fd`
/// with status `st`, has the undo journal of an in-place patch or the staging file
/// of a rewrite beside it: another rdelta is updating it (it holds the file's
/// lock), or one was interrupted and `rdelta recover` must restore or finish it.
/// A signature, delta or patch made from it would describe neither the old file
/// nor the new one.
result<void> refuse_unfinished_update(int fd, const std::string& path, const struct stat& st);

/// Fail (io_error) when the file carries the note of an in-place patch without a
/// journal that has not finished: running (it holds the lock), or interrupted, and
/// then nothing can restore it. Neither an input nor an image to patch or recover.
result<void> refuse_torn_image(int fd, const std::string& path, const struct stat& st);

}  // namespace rdelta::io_detail
