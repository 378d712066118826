// publish.hpp - the last step of an output: putting the finished file in place.
#pragma once

#include <rdelta/error.hpp>

#include <cstdint>
#include <string>

namespace rdelta::io_detail {

/// Rename `temp` to `path`, failing with "file exists" (io_error) instead of
/// replacing a file that is there now; `temp` is left for the caller to remove.
result<void> rename_no_replace(const std::string& temp, const std::string& path, const std::string& name);

/// Allocate in `to` the space the data of `from`'s first `size` bytes will take
/// (holes of `from` need none), changing nothing `to` reads: a disk too full for
/// the rewrite fails here, before `to` is touched. Filesystems that cannot
/// preallocate pass unchecked.
result<void> reserve_for_copy(int from, int to, std::uint64_t size, const std::string& name);

/// Copy the first `size` bytes of `from` over the file open as `to` (holes stay
/// holes where the filesystem can punch them), cut `to` to `size`, and fsync it
/// when `durable`. Used when the existing file's inode must be kept.
result<void> copy_into_inode(int from, int to, std::uint64_t size, bool durable, const std::string& name);

/// fsync the folder holding a renamed file, so the new name survives a crash.
void sync_folder(const std::string& path);

/// An unnamed file in `folder` (O_TMPFILE) that link_unnamed() can name later,
/// or -1 where the filesystem cannot make one or /proc is missing: a run killed
/// before it publishes then leaves nothing behind, however large the output.
int open_unnamed_in(const std::string& folder);

/// Give the unnamed file `fd` the name `path`, never replacing a file that is
/// there now ("file exists", io_error).
result<void> link_unnamed(int fd, const std::string& path, const std::string& name);

/// Give the unnamed file `fd` a temporary name in `folder` (set in `temp`) for a
/// rename over an existing file.
result<void> link_unnamed_beside(int fd, const std::string& folder, const std::string& base, const std::string& name,
                                 std::string& temp);

/// Six random letters and digits, for a name that must not exist yet.
std::string random_letters();

/// A temporary file for an output named `path`: `.NAME.rdelta-XXXXXX` in
/// `folder`, or `.rdelta-XXXXXX` when that name would be too long. Sets `temp`.
/// The temporary files of dead runs for the same name are removed first
/// (stale_temps.hpp), and the new one is marked alive.
result<int> make_temp_beside(const std::string& folder, const std::string& base, const std::string& name,
                             std::string& temp);

}  // namespace rdelta::io_detail
