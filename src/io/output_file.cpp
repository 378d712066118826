// output_file.cpp - outputs: standard output, a device written in place, or a
// temporary file published under its name only when complete.
#include "posix_util.hpp"

#include <rdelta/file.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rdelta {

using io_detail::io_fail;
using io_detail::register_temp;
using io_detail::unregister_temp;

result<void> output_file::check(const std::string& path, bool force) {
    if (is_std_stream(path)) return {};
    if (path.empty()) return fail(errc::io_error, "\"\": cannot open for writing: No such file or directory");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (!force) return fail(errc::io_error, path + ": file exists (use --force to overwrite)");
        if (S_ISDIR(st.st_mode)) return io_fail(path, "cannot write", EISDIR);
    }
    return {};
}

result<output_file> output_file::create(const std::string& path) {
    if (is_std_stream(path)) return output_file(1, path, "");
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        // A device or FIFO is written in place; replacing it with a file would be wrong.
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) return io_fail(path, "cannot open for writing", errno);
        return output_file(fd, path, "");
    }
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string temp = dir + "." + base + ".rdelta-XXXXXX";
    const int fd = mkstemp(temp.data());
    if (fd < 0) return io_fail(path, "cannot create a temporary file beside it", errno);
    register_temp(temp);
    // Permissions as a plain create would give, or those of the file being replaced.
    const mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
    return output_file(fd, path, temp);
}

output_file::output_file(output_file&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      temp_(std::exchange(other.temp_, "")),
      name_(std::move(other.name_)) {}

output_file::~output_file() { discard(); }

void output_file::discard() noexcept {
    if (!temp_.empty()) {
        ::unlink(temp_.c_str());
        unregister_temp();
        temp_.clear();
    }
    if (fd_ > 2) ::close(fd_);
    fd_ = -1;
}

namespace {

constexpr std::size_t hole_unit = 4096;

bool all_zero(const std::uint8_t* p, std::size_t n) {
    static const std::uint8_t zeros[hole_unit] = {};
    return std::memcmp(p, zeros, n) == 0;
}

}  // namespace

result<void> output_file::write(const std::uint8_t* p, std::size_t n) {
    if (!sparse_) {
        pos_ += n;
        return write_all(p, n);
    }
    // Runs of units aligned to the output offset, all zero or all not.
    while (n > 0) {
        std::size_t len = std::min<std::size_t>(n, hole_unit - pos_ % hole_unit);
        const bool zero = all_zero(p, len);
        while (len < n) {
            const std::size_t unit = std::min(n - len, hole_unit);
            if (all_zero(p + len, unit) != zero) break;
            len += unit;
        }
        if (zero) {
            if (::lseek(fd_, static_cast<off_t>(len), SEEK_CUR) < 0) return io_fail(name_, "seek failed", errno);
        } else if (auto written = write_all(p, len); !written) {
            return written;
        }
        pos_ += len, p += len, n -= len;
    }
    return {};
}

result<void> output_file::write_all(const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd_, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return io_fail(name_, "write failed", errno);
        }
        p += w, n -= static_cast<std::size_t>(w);
    }
    if (nocache_) drop_written_pages(false);
    return {};
}

// Written pages are dirty and cannot be dropped until they reach the disk: start
// writeback of each 32 MiB window, then wait for and drop the one before it.
void output_file::drop_written_pages(bool final) {
    constexpr std::uint64_t window = std::uint64_t{32} << 20;
    while (final ? dropped_to_ < pos_ : dropped_to_ + 2 * window <= pos_) {
        const std::uint64_t len = final ? pos_ - dropped_to_ : window;
        sync_file_range(fd_, static_cast<off_t>(dropped_to_ + window), static_cast<off_t>(window), SYNC_FILE_RANGE_WRITE);
        sync_file_range(fd_, static_cast<off_t>(dropped_to_), static_cast<off_t>(len),
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
        posix_fadvise(fd_, static_cast<off_t>(dropped_to_), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
        dropped_to_ += len;
    }
}

result<std::size_t> output_file::read_back(std::uint64_t pos, std::span<std::uint8_t> out) const {
    for (;;) {
        const ssize_t r = ::pread(fd_, out.data(), out.size(), static_cast<off_t>(pos));
        if (r >= 0) return static_cast<std::size_t>(r);
        if (errno != EINTR) return io_fail(name_, "cannot read back the output", errno);
    }
}


bool output_file::hole_in_written(std::uint64_t pos, std::uint64_t len) const { return io_detail::hole_at(fd_, pos, len); }

result<void> output_file::commit() {
    if (temp_.empty()) return {};
    // A file that ends in a hole needs its length set explicitly.
    if (sparse_ && ::ftruncate(fd_, static_cast<off_t>(pos_)) != 0) return io_fail(name_, "cannot set the length", errno);
    if (nocache_) drop_written_pages(true);
    if (::close(std::exchange(fd_, -1)) != 0) return io_fail(name_, "write failed", errno);
    if (::rename(temp_.c_str(), path_.c_str()) != 0) return io_fail(name_, "cannot rename the finished output into place", errno);
    unregister_temp();
    temp_.clear();
    return {};
}

}  // namespace rdelta
