// update_marker.hpp - a note on the file itself, for the time an in-place patch or
// an inode rewrite may leave it part old, part new, naming the journal or staging
// file that can restore or finish it.
//
// The journal and the staging file are found by the name the file was updated
// under; the note travels with the inode, so a reader that reaches the file under
// another name (it was renamed after a crash, or is another hard link) still sees
// that it is half updated, and `rdelta recover` under that name finds what to
// recover from. It is an extended attribute, `user.rdelta.unfinished`; where the
// file system has none, the name-based lookup is all there is.
#pragma once

#include <sys/stat.h>
#include <cstdint>
#include <optional>
#include <string>

namespace rdelta::io_detail {

/// journal, rewrite: the journal or staging file that restores or finishes the
/// file; unjournaled: an in-place patch without a journal, which nothing can undo.
enum class update_kind { journal, rewrite, unjournaled };

struct update_marker {
    update_kind kind = update_kind::journal;
    std::string path;  ///< the journal or staging file (absolute); empty when unjournaled
    /// The nonce of the journal's header (a version 2 note); none in a version 1
    /// note, which earlier versions wrote.
    std::optional<std::uint64_t> nonce;
};

/// Note on the file open as `fd` (device `dev`, inode `ino`) that `path` holds
/// what can restore or finish it; a journal's note also carries the `nonce` of its
/// header, binding the note to that one journal. With `durable`, the note is on
/// disk (fsync) before this returns, so it is there after a power loss during the
/// update. 0, or the errno of the failure (ENOTSUP where the file system keeps no
/// such attributes).
int set_update_marker(int fd, std::uint64_t dev, std::uint64_t ino, update_kind kind, const std::string& path,
                      bool durable, std::uint64_t nonce = 0);

/// Tag the staging file open as `staging_fd` as the one for the file with device
/// `dev` and inode `ino`: a note names a staging file by path, and only a staging
/// file tagged for the very inode that carries the note is taken (a file someone
/// can write could otherwise name another file's staging file, owned by root, and
/// have its content copied in). Best effort, as the note.
bool tag_staging_file(int staging_fd, std::uint64_t dev, std::uint64_t ino);

/// What the tag of the staging file open as `staging_fd` says: made for the file
/// with status `st`, for another (or untagged), or its file system keeps no tags.
enum class staging_tag_state { this_file, other, unsupported };
staging_tag_state staging_tag_of(int staging_fd, const struct stat& st);

/// Remove the note (the file is whole again). Best effort.
void clear_update_marker(int fd);

/// The note on the file open as `fd` (status `st`) or at `path` (no symlink left
/// in it), when it is one rdelta wrote for this very inode (a copy of the file
/// with its attributes is another inode) and names a regular file that is present,
/// under a name of its kind, owned by a trusted_owner() (an unjournaled note names
/// none); a staging file must carry the tag of tag_staging_file() for this inode.
std::optional<update_marker> read_update_marker(int fd, const struct stat& st);
std::optional<update_marker> read_update_marker(const std::string& path, const struct stat& st);

/// Whether the journal whose header carries `nonce` is the one of the update the
/// file open as `fd` (status `st`) is in: current when its note names a journal
/// with that nonce (or is a version 1 note, which carries none), stale when the
/// file has no note or one for another update (the journal was left by an update
/// that finished, or was put back under the name), unknown when the note cannot be
/// read (no user attributes on this file system): then only the name says.
enum class journal_claim { current, stale, unknown };
journal_claim claim_of_journal(int fd, const struct stat& st, std::uint64_t nonce);

}  // namespace rdelta::io_detail
