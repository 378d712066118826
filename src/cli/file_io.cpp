// file_io.cpp - POSIX file handling for the CLI.
#include "file_io.hpp"

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

namespace rdelta::cli {

namespace {

error io_fail(const std::string& name, const char* what, int err) {
    return fail(errc::io_error, name + ": " + what + ": " + std::strerror(err));
}

// The temporary output being written, for the signal handler (one at a time).
volatile std::sig_atomic_t temp_registered = 0;
char temp_path_for_signal[PATH_MAX];

void register_temp(const std::string& path) {
    if (path.size() >= sizeof temp_path_for_signal) return;
    std::memcpy(temp_path_for_signal, path.c_str(), path.size() + 1);
    temp_registered = 1;
}

void unregister_temp() { temp_registered = 0; }

extern "C" void remove_temp_and_die(int sig) {
    if (temp_registered) unlink(temp_path_for_signal);  // async-signal-safe
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

// Size of a regular file or a block device (a device is read like a file of its
// size; rdiff treats it as a stream), -1 for pipes and the like.
std::int64_t random_access_size(int fd, const struct stat& st) {
    if (S_ISREG(st.st_mode)) return st.st_size;
    std::uint64_t bytes = 0;
    if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &bytes) == 0) return static_cast<std::int64_t>(bytes);
    return -1;
}

}  // namespace

void install_cleanup_handlers() {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
        struct sigaction sa {};
        sa.sa_handler = remove_temp_and_die;
        sigemptyset(&sa.sa_mask);
        sigaction(sig, &sa, nullptr);
    }
}

result<input_file> input_file::open(const std::string& path) {
    if (is_std_stream(path)) {
        struct stat st {};
        if (fstat(0, &st) != 0) return io_fail("standard input", "cannot stat", errno);
        return input_file(0, "standard input", random_access_size(0, st));
    }
    if (path.empty()) return fail(errc::io_error, "\"\": cannot open: No such file or directory");
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return io_fail(path, "cannot open for reading", errno);
    struct stat st {};
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return io_fail(path, "cannot stat", err);
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        return io_fail(path, "cannot read", EISDIR);
    }
    return input_file(fd, path, random_access_size(fd, st));
}

input_file::input_file(input_file&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)), regular_size_(other.regular_size_) {}

input_file::~input_file() {
    if (nocache_ && fd_ >= 0) posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
    if (fd_ > 2) ::close(fd_);
}

result<std::size_t> input_file::read_full(std::uint8_t* p, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::read(fd_, p + got, n - got);
        if (r == 0) break;
        if (r < 0) {
            if (errno == EINTR) continue;
            return io_fail(name_, "read failed", errno);
        }
        got += static_cast<std::size_t>(r);
    }
    read_pos_ += static_cast<std::int64_t>(got);
    // Drop whole 2 MiB units already read: the page cache keeps large folios,
    // which a smaller range would not release.
    const std::int64_t done = read_pos_ & ~((std::int64_t{2} << 20) - 1);
    if (nocache_ && done > dropped_to_) {
        posix_fadvise(fd_, dropped_to_, done - dropped_to_, POSIX_FADV_DONTNEED);
        dropped_to_ = done;
    }
    return got;
}

file_basis::file_basis(const input_file& file)
    : fd_(file.fd()), name_(file.name()), size_(file.regular_size()), nocache_(file.nocache()) {}

file_basis::~file_basis() {
    if (nocache_) posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
}

// Several threads read slices near the furthest position; drop what lies a few
// MiB behind it, in whole 2 MiB units.
void file_basis::drop_behind(std::uint64_t end) noexcept {
    constexpr std::uint64_t lag = std::uint64_t{16} << 20, unit = std::uint64_t{2} << 20;
    const std::uint64_t target = end > lag ? (end - lag) & ~(unit - 1) : 0;
    std::uint64_t current = dropped_to_.load(std::memory_order_relaxed);
    while (target > current && !dropped_to_.compare_exchange_weak(current, target)) {
    }
    if (target > current)
        posix_fadvise(fd_, static_cast<off_t>(current), static_cast<off_t>(target - current), POSIX_FADV_DONTNEED);
}

result<std::size_t> file_basis::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    for (;;) {
        const ssize_t r = ::pread(fd_, out.data(), out.size(), static_cast<off_t>(pos));
        if (r > 0 && nocache_) drop_behind(pos + static_cast<std::uint64_t>(r));
        if (r == 0 && size_ >= 0 && pos < static_cast<std::uint64_t>(size_) && !out.empty())
            return fail(errc::io_error, name_ + ": the file became shorter while it was read");
        if (r >= 0) return static_cast<std::size_t>(r);
        if (errno == EINTR) continue;
        if (errno == ESPIPE) return fail(errc::io_error, name_ + ": the basis must be seekable to COPY from it (it is a pipe)");
        return io_fail(name_, "read failed", errno);
    }
}

namespace {

// SEEK_DATA finds the next byte that is not in a hole (ENXIO: none follows).
bool hole_at(int fd, std::uint64_t pos, std::uint64_t len) {
    const off_t data = ::lseek(fd, static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0) return errno == ENXIO;
    return static_cast<std::uint64_t>(data) >= pos + len;
}

}  // namespace

bool file_basis::is_hole(std::uint64_t pos, std::uint64_t len) { return hole_at(fd_, pos, len); }

bool in_place_fd::is_hole(std::uint64_t pos, std::uint64_t len) { return hole_at(fd_, pos, len); }

std::optional<std::uint64_t> file_basis::size() const {
    if (size_ < 0) return std::nullopt;
    return static_cast<std::uint64_t>(size_);
}

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

bool output_file::hole_in_written(std::uint64_t pos, std::uint64_t len) const { return hole_at(fd_, pos, len); }

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

}  // namespace rdelta::cli

namespace rdelta::cli {

result<in_place_fd> in_place_fd::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return io_fail(path, "cannot open for reading and writing", errno);
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return fail(errc::io_error, path + ": --in-place needs a regular file");
    }
    return in_place_fd(fd, path, static_cast<std::uint64_t>(st.st_size));
}

in_place_fd::in_place_fd(in_place_fd&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), name_(std::move(other.name_)), size_(other.size_) {}

in_place_fd::~in_place_fd() {
    if (fd_ >= 0) ::close(fd_);
}

result<std::size_t> in_place_fd::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    for (;;) {
        const ssize_t r = ::pread(fd_, out.data(), out.size(), static_cast<off_t>(pos));
        if (r >= 0) return static_cast<std::size_t>(r);
        if (errno != EINTR) return io_fail(name_, "read failed", errno);
    }
}

result<void> in_place_fd::write(std::uint64_t pos, std::span<const std::uint8_t> bytes) {
    while (!bytes.empty()) {
        const ssize_t w = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(pos));
        if (w < 0) {
            if (errno == EINTR) continue;
            return io_fail(name_, "write failed", errno);
        }
        bytes = bytes.subspan(static_cast<std::size_t>(w));
        pos += static_cast<std::uint64_t>(w);
    }
    return {};
}

result<void> in_place_fd::resize(std::uint64_t size) {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return io_fail(name_, "cannot set the length", errno);
    size_ = size;
    return {};
}

result<std::vector<std::uint8_t>> read_whole(byte_source& in) {
    std::vector<std::uint8_t> bytes;
    if (in.size_hint() > 0) bytes.reserve(static_cast<std::size_t>(in.size_hint()));
    std::uint8_t buf[1 << 16];
    for (;;) {
        auto got = in.read_full(buf, sizeof buf);
        if (!got) return std::move(got).err();
        bytes.insert(bytes.end(), buf, buf + *got);
        if (*got < sizeof buf) return bytes;
    }
}

}  // namespace rdelta::cli
