// manifest_file.cpp - an image's chunk manifest, as a file beside it
// (rdelta/manifest.hpp).
//
// Reached only through the folder descriptor the image was opened in. A file under
// the manifest's name is read only when io_detail::untrusted_because() finds nothing
// against it; anything else is treated as absent, and a new manifest is written to
// an unnamed file (O_TMPFILE; a uniquely named one where the file system has none),
// synced, linked under a unique name and renamed over the old name, so a crash
// leaves the old manifest or the new one, and a symlink or hard link planted under
// the name is replaced, never followed.
#include "core/posix_io.hpp"
#include "fs/path_walk.hpp"
#include "fs/posix_util.hpp"
#include "fs/trusted_file.hpp"

#include "beside_file.hpp"
#include "in_place_fd_state.hpp"

#include <rdelta/in_place_fd.hpp>
#include <rdelta/manifest.hpp>

#include <xxhash.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <random>
#include <string_view>
#include <vector>

namespace rdelta {

using io_detail::io_fail;

namespace {

std::string manifest_name(const std::string& base) {
    return io_detail::beside_name(base, ".rdelta-manifest");
}

class manifest_file final : public manifest_storage, private beside_file {
public:
    manifest_file(int folder, std::string base, std::string path, const struct stat& image)
        : beside_file(folder, std::move(base), std::move(path), image) {}
    ~manifest_file() override {
        discard_staged();
        if (fd_ >= 0) ::close(fd_);
    }

    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (!opened_) open_current();
        if (fd_ < 0) return std::size_t{0};
        const ssize_t r = posix_io::pread_some(fd_, out.data(), out.size(), pos);
        if (r < 0) return io_fail(path_, "read failed", errno);
        return static_cast<std::size_t>(r);
    }

    result<void> stage() override {
        discard_staged();
        remove_leftovers();
        staged_ = ::openat(folder_, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (staged_ < 0) {  // no O_TMPFILE here: a uniquely named file
            staged_name_ = unique_name();
            staged_ = io_detail::open_beside(folder_, staged_name_, O_RDWR | O_CREAT | O_EXCL, 0600);
            if (staged_ < 0) {
                staged_name_.clear();
                return io_fail(path_, "cannot create a new manifest", errno);
            }
        }
        return {};
    }

    result<void> write_staged(std::uint64_t pos, std::span<const std::uint8_t> bytes) override {
        if (staged_ < 0) return fail(errc::param_error, path_ + ": nothing staged");
        if (const int err = posix_io::pwrite_all(staged_, bytes.data(), bytes.size(), pos))
            return io_fail(path_, "write failed", err);
        return {};
    }

    result<void> publish() override {
        if (staged_ < 0) return fail(errc::param_error, path_ + ": nothing staged");
        if (::fdatasync(staged_) != 0) {
            const int e = errno;
            discard_staged();
            return io_fail(path_, "fdatasync failed", e);
        }
        if (staged_name_.empty()) {  // unnamed: give it a unique name first
            const std::string name = unique_name();
            char proc[64];
            std::snprintf(proc, sizeof proc, "/proc/self/fd/%d", staged_);
            if (::linkat(AT_FDCWD, proc, folder_, name.c_str(), AT_SYMLINK_FOLLOW) != 0) {
                const int e = errno;
                discard_staged();
                return io_fail(path_, "cannot link the new manifest", e);
            }
            staged_name_ = name;
        }
        if (::renameat(folder_, staged_name_.c_str(), folder_, base_.c_str()) != 0) {
            const int e = errno;
            discard_staged();
            return io_fail(path_, "cannot rename the new manifest into place", e);
        }
        staged_name_.clear();
        ::close(staged_);
        staged_ = -1;
        if (::fsync(folder_) != 0 && errno != EINVAL && errno != EROFS)
            return io_fail(path_, "fsync of its folder failed", errno);
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1, opened_ = false;
        return {};
    }

    void discard_staged() override {
        if (!staged_name_.empty()) (void)::unlinkat(folder_, staged_name_.c_str(), 0);
        staged_name_.clear();
        if (staged_ >= 0) ::close(staged_);
        staged_ = -1;
    }

    const std::string& name() const override { return path_; }

private:
    // The file under the manifest's name, when it can be ours; absent otherwise.
    void open_current() {
        opened_ = true;
        const int fd = io_detail::open_beside(folder_, base_, O_RDONLY);
        if (fd < 0) return;
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !io_detail::untrusted_because(st, image_).empty()) {
            ::close(fd);
            return;
        }
        fd_ = fd;
    }

    std::string unique_name() const {
        std::random_device rd;
        char suffix[24];
        std::snprintf(suffix, sizeof suffix, ".%08x%08x", rd(), rd());
        return base_ + suffix;
    }

    // New manifests a crash left between their link and their rename: the manifest's
    // name and 16 hex digits, and only files that can be ours.
    void remove_leftovers() {
        const int dir = ::openat(folder_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0) return;
        DIR* d = ::fdopendir(dir);
        if (!d) {
            ::close(dir);
            return;
        }
        std::vector<std::string> found;
        while (const dirent* e = ::readdir(d)) {
            const std::string_view name(e->d_name);
            if (name.size() == base_.size() + 17 && name.starts_with(base_) && name[base_.size()] == '.' &&
                name.find_first_not_of("0123456789abcdef", base_.size() + 1) == std::string_view::npos)
                found.emplace_back(name);
        }
        ::closedir(d);
        for (const auto& name : found) {
            struct stat st {};
            if (::fstatat(folder_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                io_detail::untrusted_because(st, image_).empty())
                (void)::unlinkat(folder_, name.c_str(), 0);
        }
    }

    int fd_ = -1;
    bool opened_ = false;
    int staged_ = -1;
    std::string staged_name_;  // empty while unnamed
};

}  // namespace

result<std::unique_ptr<manifest_storage>> open_manifest_file(const in_place_fd& image) {
    const int dir = ::fcntl(image.s_->folder_, F_DUPFD_CLOEXEC, 0);
    if (dir < 0) return io_fail(image.s_->folder_name_, "cannot hold the folder open", errno);
    std::string base = manifest_name(image.s_->base_);
    std::string path = io_detail::joined(image.s_->folder_name_, base);
    return std::unique_ptr<manifest_storage>(
        std::make_unique<manifest_file>(dir, std::move(base), std::move(path), image.s_->st_));
}

}  // namespace rdelta
