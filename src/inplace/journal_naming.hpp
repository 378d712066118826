// journal_naming.hpp - where an in-place patch's undo journal lives and whether a
// journal file counts for an image (journal_naming.cpp): the input side refuses a
// half-patched image by them, the image side finds its journal.
#pragma once

#include <sys/stat.h>

#include <string>
#include <utility>

namespace rdelta::io_detail {

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

}  // namespace rdelta::io_detail
