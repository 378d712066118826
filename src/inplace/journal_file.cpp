// journal_file.cpp - the undo journal of an in-place patch, as a file beside the image.
#include "core/posix_io.hpp"
#include "fs/path_walk.hpp"
#include "fs/posix_util.hpp"
#include "fs/trusted_file.hpp"
#include "journal_format.hpp"
#include "journal_naming.hpp"
#include "update_marker.hpp"

#include "beside_file.hpp"
#include "in_place_fd_state.hpp"

#include <rdelta/in_place_fd.hpp>
#include <rdelta/journal.hpp>

#include <xxhash.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace rdelta {

using io_detail::io_fail;

namespace {

// The journal, always reached through the folder descriptor of its image: a name
// swapped for a symlink is not followed, and a file found under the journal's name
// is used only when io_detail::untrusted_because() finds nothing against it.
class journal_file final : public journal_storage, private beside_file {
public:
    journal_file(int folder, std::string base, std::string path, const struct stat& image)
        : beside_file(folder, std::move(base), std::move(path), image) {}
    ~journal_file() override { close_fd(); }

    bool exists() override {
        struct stat st {};
        return ::fstatat(folder_, base_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    }
    result<void> create() override {
        close_fd();
        // Recovery ran first and removed any journal of ours: whatever is under the
        // name now was put there by someone else, and is neither reused nor removed.
        fd_ = io_detail::open_beside(folder_, base_, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd_ < 0 && errno == EEXIST)
            return fail(errc::io_error,
                        path_ + ": appeared while the patch started: not ours, left alone; nothing was changed");
        if (fd_ < 0) {
            error e = io_fail(path_, "cannot create the undo journal", errno);
            e.fix = remedy::no_journal;
            return e;
        }
        return {};
    }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (auto o = open_existing(); !o) return std::move(o).err();
        const ssize_t r = posix_io::pread_some(fd_, out.data(), out.size(), pos);
        if (r < 0) return io_fail(path_, "read failed", errno);
        return static_cast<std::size_t>(r);
    }
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) override {
        if (auto o = open_existing(); !o) return o;
        if (const int err = posix_io::pwrite_all(fd_, bytes.data(), bytes.size(), pos))
            return io_fail(path_, "write failed", err);
        return {};
    }
    result<void> sync() override {
        if (fd_ >= 0 && ::fdatasync(fd_) != 0) return io_fail(path_, "fdatasync failed", errno);
        return {};
    }
    result<void> sync_folder() override {
        // Some file systems cannot fsync a folder; the rename-free journal then relies on them.
        if (::fsync(folder_) != 0 && errno != EINVAL && errno != EROFS)
            return io_fail(path_, "fsync of its folder failed", errno);
        return {};
    }
    result<void> remove() override {
        // Only the file this run opened (or made) goes: a name swapped meanwhile is left.
        if (auto o = open_existing(); !o) {
            if (!exists()) return {};
            return o;
        }
        struct stat mine {
        }, now{};
        const bool same = ::fstat(fd_, &mine) == 0 &&
                          ::fstatat(folder_, base_.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 &&
                          mine.st_dev == now.st_dev && mine.st_ino == now.st_ino;
        close_fd();
        moved_away_ = !same;
        if (same && ::unlinkat(folder_, base_.c_str(), 0) != 0 && errno != ENOENT)
            return io_fail(path_, "cannot delete the journal", errno);
        return sync_folder();
    }
    bool moved_away() const override { return moved_away_; }
    result<bool> move_to(int folder_fd, const std::string& name) override {
        if (auto o = open_existing(); !o) return std::move(o).err();
        struct stat mine {
        }, now{};
        const bool same = ::fstat(fd_, &mine) == 0 &&
                          ::fstatat(folder_, base_.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 &&
                          mine.st_dev == now.st_dev && mine.st_ino == now.st_ino;
        if (!same) return fail(errc::io_error, path_ + ": was moved or replaced during the patch: not kept");
        if (::renameat2(folder_, base_.c_str(), folder_fd, name.c_str(), RENAME_NOREPLACE) != 0) {
            if (errno == EXDEV) return false;
            return io_fail(path_, "cannot move the journal into the history", errno);
        }
        close_fd();
        if (::fsync(folder_fd) != 0 && errno != EINVAL && errno != EROFS)
            return io_fail(path_, "fsync of the history folder failed", errno);
        if (auto s = sync_folder(); !s) return std::move(s).err();
        return true;
    }
    const std::string& name() const override { return path_; }

private:
    result<void> open_existing() {
        if (fd_ >= 0) return {};
        const int fd = io_detail::open_beside(folder_, base_, O_RDWR);
        if (fd < 0) return io_fail(path_, "cannot open the journal", errno);
        struct stat st {};
        std::string why = ::fstat(fd, &st) != 0 ? "cannot stat it" : io_detail::untrusted_because(st, image_);
        if (!why.empty()) {
            ::close(fd);
            return fail(errc::io_error,
                        path_ + ": not a journal rdelta made for this file (" + why +
                            "): not followed; nothing was changed (delete it if it is no journal of yours)");
        }
        fd_ = fd;
        return {};
    }
    void close_fd() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    int fd_ = -1;
    bool moved_away_ = false;
};

using io_detail::joined;

}  // namespace

namespace {

// The journal an interrupted patch named on the file itself: found even when the
// file was renamed since, or is reached through another hard link. Followed only
// when its own header names this very file: whoever can write the file can set
// the note, and recovery replays or deletes what it names.
std::string marked_journal(int fd, const struct stat& st) {
    const auto marker = io_detail::read_update_marker(fd, st);
    if (!marker || marker->kind != io_detail::update_kind::journal) return "";
    return io_detail::journal_of_file(marker->path, fd, st) ? marker->path : "";
}

result<std::unique_ptr<journal_storage>> journal_in(int folder, const std::string& folder_name, const std::string& base,
                                                    int image_fd, const struct stat& st) {
    std::string name = io_detail::journal_name(base), path = joined(folder_name, name);
    int dir = ::fcntl(folder, F_DUPFD_CLOEXEC, 0);
    if (dir < 0) return io_fail(folder_name, "cannot hold the folder open", errno);
    if (std::string marked = marked_journal(image_fd, st); !marked.empty() && marked != path) {
        const auto [marked_folder, marked_base] = io_detail::split_path(marked);
        const int other = ::open(marked_folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (other >= 0) {
            ::close(dir);
            dir = other, name = marked_base, path = marked;
        }
    }
    return std::unique_ptr<journal_storage>(std::make_unique<journal_file>(dir, std::move(name), std::move(path), st));
}

}  // namespace

result<std::unique_ptr<journal_storage>> open_journal_file(const in_place_fd& image) {
    return journal_in(image.s_->folder_, image.s_->folder_name_, image.s_->base_, image.s_->fd_, image.s_->st_);
}

result<std::unique_ptr<journal_storage>> open_journal_file(const std::string& image_path) {
    auto walked = io_detail::open_walked(image_path, O_RDONLY, "cannot open");
    if (!walked) return std::move(walked).err();
    return journal_in(walked->folder, walked->folder_name, walked->base, walked->fd, walked->st);
}

}  // namespace rdelta
