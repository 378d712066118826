// finish_rewrite.cpp - finishing an inode rewrite that was cut short.
//
// The rewrite (output_file::rewrite_inode) names its complete staging file
// `.NAME.rdelta-rewrite` beside the file, or `.rdelta-rewrite-DEV-INO` in $TMPDIR,
// before it starts overwriting the file, and removes it when done. A staging file
// found under that name is therefore complete, and copying it into the file is
// what the interrupted run was doing: recovery rolls forward.
#include "fs/path_walk.hpp"
#include "fs/posix_util.hpp"
#include "fs/publish.hpp"
#include "fs/trusted_file.hpp"
#include "pending_rewrite.hpp"
#include "update_marker.hpp"

#include "in_place_fd_state.hpp"

#include <rdelta/in_place_fd.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace rdelta {

using io_detail::io_fail;

namespace {

// A staging file found under one of the names an interrupted rewrite of the image
// leaves, opened through its folder.
struct staging_file {
    int fd = -1, folder = -1;
    std::string base, path;
    ~staging_file() {
        if (fd >= 0) ::close(fd);
        if (folder >= 0) ::close(folder);
    }
};

// Whether `base` in `folder` (taken over) is the staging file of the image: none
// there, or one owned by someone who could not have made it (anyone may create a
// name in /tmp), is no staging file; one that is not what rdelta makes (a symlink,
// other links, writable by others, tagged for another file) is refused.
result<std::unique_ptr<staging_file>> open_staging(int folder, const std::string& base, const std::string& path,
                                                   const struct stat& image, const std::string& name) {
    auto f = std::make_unique<staging_file>();
    f->folder = folder, f->base = base, f->path = path;
    if (folder < 0) return std::unique_ptr<staging_file>();
    struct stat s {};
    if (::fstatat(folder, base.c_str(), &s, AT_SYMLINK_NOFOLLOW) != 0 || !io_detail::trusted_owner(s.st_uid, image))
        return std::unique_ptr<staging_file>();
    std::string why = io_detail::untrusted_because(s, image);
    if (why.empty()) {
        f->fd = io_detail::open_beside(folder, base, O_RDONLY);
        if (f->fd < 0) return io_fail(path, "cannot open the staging file of an interrupted rewrite", errno);
        if (::fstat(f->fd, &s) != 0) return io_fail(path, "cannot stat", errno);
        why = io_detail::untrusted_because(s, image);
        if (why.empty() && io_detail::staging_tag_of(f->fd, image) == io_detail::staging_tag_state::other)
            why = "not tagged as the staging file of this very file";
    }
    if (!why.empty())
        return fail(errc::io_error,
                    path + ": not a staging file rdelta made for " + name + " (" + why + "); both left as they are");
    return f;
}

int open_folder(const std::string& folder) {
    return ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

using io_detail::joined;

// The staging file the image names on itself, else the one beside it, else the
// one in $TMPDIR (or /tmp).
result<std::unique_ptr<staging_file>> find_staging(int image_fd, int folder, const std::string& folder_name,
                                                   const std::string& base, const struct stat& st,
                                                   const std::string& name) {
    if (const auto marker = io_detail::read_update_marker(image_fd, st);
        marker && marker->kind == io_detail::update_kind::rewrite) {
        const auto [marked_folder, marked_base] = io_detail::split_path(marker->path);
        auto found = open_staging(open_folder(marked_folder), marked_base, marker->path, st, name);
        if (!found || *found) return found;
    }
    const std::string beside = io_detail::staging_name_beside(base);
    auto found = open_staging(::fcntl(folder, F_DUPFD_CLOEXEC, 0), beside, joined(folder_name, beside), st, name);
    if (!found || *found) return found;
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string tmp = tmpdir && *tmpdir ? tmpdir : "/tmp";
    const std::string elsewhere = io_detail::staging_name_elsewhere(st);
    return open_staging(open_folder(tmp), elsewhere, joined(tmp, elsewhere), st, name);
}

// Copy the staging file into the image, then drop the staging file and only then
// the note: stopped in between, the note names a file that is gone, which counts
// as none, so no name is refused for a staging file left after a complete copy.
result<std::uint64_t> finish(int image_fd, staging_file& staging, const std::string& name) {
    struct stat s {};
    if (::fstat(staging.fd, &s) != 0) return io_fail(staging.path, "cannot stat", errno);
    const auto size = static_cast<std::uint64_t>(s.st_size);
    if (auto room = io_detail::reserve_for_copy(staging.fd, image_fd, size, name); !room) return std::move(room).err();
    io_detail::signal_deferral no_stop_halfway;
    if (auto copied = io_detail::copy_into_inode(staging.fd, image_fd, size, true, name); !copied)
        return std::move(copied).err();
    struct stat now {};
    if (::fstatat(staging.folder, staging.base.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == s.st_dev &&
        now.st_ino == s.st_ino && ::unlinkat(staging.folder, staging.base.c_str(), 0) != 0)
        return io_fail(staging.path, "cannot delete the staging file (the rewrite is done)", errno);
    (void)::fsync(staging.folder);
    io_detail::clear_update_marker(image_fd);  // whole and synced
    return size;
}

}  // namespace

result<std::string> finish_interrupted_rewrite(in_place_fd& image) {
    auto staging = find_staging(image.s_->fd_, image.s_->folder_, image.s_->folder_name_, image.s_->base_,
                                image.s_->st_, image.s_->name_);
    if (!staging) return std::move(staging).err();
    if (!*staging) return std::string();
    auto size = finish(image.s_->fd_, **staging, image.s_->name_);
    if (!size) return std::move(size).err();
    image.s_->size_ = *size;
    return (*staging)->path;
}

result<std::string> finish_interrupted_rewrite(const std::string& path) {
    auto image = in_place_fd::open(path);
    if (!image) return std::move(image).err();
    if (auto locked = image->lock(); !locked) return std::move(locked).err();
    return finish_interrupted_rewrite(*image);
}

}  // namespace rdelta
