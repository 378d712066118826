// journal_file.cpp - the undo journal of an in-place patch, as a file beside the image.
#include "posix_util.hpp"
#include "patch/journal_writer.hpp"
#include "update_marker.hpp"

#include <rdelta/journal.hpp>

#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rdelta {

using io_detail::io_fail;

namespace {

class journal_file final : public journal_storage {
public:
    journal_file(std::string folder, std::string path) : folder_(std::move(folder)), path_(std::move(path)) {}
    ~journal_file() override { close_fd(); }

    bool exists() override {
        struct stat st {};
        return ::lstat(path_.c_str(), &st) == 0;
    }
    result<void> create() override {
        close_fd();
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd_ < 0) return io_fail(path_, "cannot create the undo journal (--no-journal patches without one)", errno);
        return {};
    }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (auto o = open_existing(); !o) return std::move(o).err();
        for (;;) {
            const ssize_t r = ::pread(fd_, out.data(), out.size(), static_cast<off_t>(pos));
            if (r >= 0) return static_cast<std::size_t>(r);
            if (errno != EINTR) return io_fail(path_, "read failed", errno);
        }
    }
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) override {
        if (auto o = open_existing(); !o) return o;
        while (!bytes.empty()) {
            const ssize_t w = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(pos));
            if (w < 0) {
                if (errno == EINTR) continue;
                return io_fail(path_, "write failed", errno);
            }
            bytes = bytes.subspan(static_cast<std::size_t>(w)), pos += static_cast<std::uint64_t>(w);
        }
        return {};
    }
    result<void> sync() override {
        if (fd_ >= 0 && ::fdatasync(fd_) != 0) return io_fail(path_, "fdatasync failed", errno);
        return {};
    }
    result<void> sync_folder() override {
        const int dir = ::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0) return io_fail(folder_, "cannot open the folder to sync it", errno);
        const int rc = ::fsync(dir);
        const int err = errno;
        ::close(dir);
        // Some file systems cannot fsync a folder; the rename-free journal then relies on them.
        if (rc != 0 && err != EINVAL && err != EROFS) return io_fail(folder_, "fsync of the folder failed", err);
        return {};
    }
    result<void> remove() override {
        close_fd();
        if (::unlink(path_.c_str()) != 0 && errno != ENOENT) return io_fail(path_, "cannot delete the journal", errno);
        return sync_folder();
    }
    const std::string& name() const override { return path_; }

private:
    result<void> open_existing() {
        if (fd_ >= 0) return {};
        fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd_ < 0) return io_fail(path_, "cannot open the journal", errno);
        return {};
    }
    void close_fd() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    std::string folder_, path_;
    int fd_ = -1;
};

}  // namespace

namespace io_detail {

std::pair<std::string, std::string> journal_path(const std::string& image_path) {
    // Beside the file itself: for a symlink, beside its target.
    std::string target = image_path;
    if (char* real = ::realpath(image_path.c_str(), nullptr)) {
        target = real;
        std::free(real);
    }
    const auto slash = target.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
    const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
    std::string name = "." + base + ".rdelta-journal";
    if (name.size() > NAME_MAX) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(base.data(), base.size())));
        name = ".rdelta-journal-" + std::string(hex);
    }
    return {folder, folder + "/" + name};
}

}  // namespace io_detail

namespace io_detail {

bool journal_of_file(const std::string& journal, const struct stat& st) {
    const int fd = ::open(journal.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    bool found = false;
    for (const std::uint64_t at : detail::journal_slot_at) {
        std::uint8_t bytes[detail::journal_header_size];
        detail::journal_header h;
        if (::pread(fd, bytes, sizeof bytes, static_cast<off_t>(at)) == static_cast<ssize_t>(sizeof bytes) &&
            detail::decode_header(bytes, h) && h.ino != 0 && h.dev == static_cast<std::uint64_t>(st.st_dev) &&
            h.ino == static_cast<std::uint64_t>(st.st_ino))
            found = true;
    }
    ::close(fd);
    return found;
}

}  // namespace io_detail

namespace {

// The journal an interrupted patch named on the file itself: found even when the
// file was renamed since, or is reached through another hard link. Followed only
// when its own header names this very file: whoever can write the file can set
// the note, and recovery replays or deletes what it names.
std::string marked_journal(const std::string& image_path) {
    char* real = ::realpath(image_path.c_str(), nullptr);
    if (!real) return "";
    const std::string target = real;
    std::free(real);
    struct stat st {};
    if (::stat(target.c_str(), &st) != 0) return "";
    const auto marker = io_detail::read_update_marker(target, st);
    if (!marker || marker->kind != io_detail::update_kind::journal) return "";
    return io_detail::journal_of_file(marker->path, st) ? marker->path : "";
}

}  // namespace

result<std::unique_ptr<journal_storage>> open_journal_file(const std::string& image_path) {
    auto [folder, path] = io_detail::journal_path(image_path);
    if (std::string marked = marked_journal(image_path); !marked.empty()) {
        path = marked;
        folder = path.substr(0, std::max<std::size_t>(path.rfind('/'), 1));
    }
    return std::unique_ptr<journal_storage>(std::make_unique<journal_file>(std::move(folder), std::move(path)));
}

}  // namespace rdelta
