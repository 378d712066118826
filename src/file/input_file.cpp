// input_file.cpp - inputs read sequentially, and a basis read at random (pread).
#include "core/posix_io.hpp"
#include "fs/posix_util.hpp"
#include "inplace/unfinished_update.hpp"

#include <rdelta/input_file.hpp>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <limits>

namespace rdelta {

using io_detail::io_fail;

// Hidden: nested in an exported class, it would be exported with it (src/librdelta.map).
struct __attribute__((visibility("hidden"))) input_file::state {
    int fd_ = -1;
    std::string name_;
    std::int64_t regular_size_ = -1;  // -1: not a regular file or block device
    std::int64_t start_ = 0;
    std::int64_t read_pos_ = 0;
    std::int64_t dropped_to_ = 0;
    bool nocache_ = false;
    bool regular_ = false;  // the fields below describe the file at open()
    std::int64_t opened_size_ = 0, opened_mtime_s_ = 0, opened_mtime_ns_ = 0;

    state(int fd, std::string name, std::int64_t size, std::int64_t start)
        : fd_(fd), name_(std::move(name)), regular_size_(size), start_(start), read_pos_(start), dropped_to_(start) {}
    state(const state&) = delete;
    state& operator=(const state&) = delete;
    ~state() {
        if (nocache_ && fd_ >= 0) posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
        if (fd_ > 2) ::close(fd_);
    }
    void remember_version(const struct stat& st) noexcept {
        regular_ = S_ISREG(st.st_mode);
        opened_size_ = st.st_size;
        opened_mtime_s_ = st.st_mtim.tv_sec;
        opened_mtime_ns_ = st.st_mtim.tv_nsec;
    }
};

input_file::input_file(std::unique_ptr<state> s) noexcept : s_(std::move(s)) {}
input_file::input_file(input_file&& other) noexcept = default;
input_file::~input_file() = default;

std::optional<std::uint64_t> input_file::size() const noexcept {
    if (s_->regular_size_ < 0) return std::nullopt;
    return static_cast<std::uint64_t>(s_->regular_size_);
}

std::int64_t input_file::start_offset() const noexcept {
    return s_->start_;
}

std::optional<std::uint64_t> input_file::whole_size() const noexcept {
    if (s_->regular_size_ < 0) return std::nullopt;
    return static_cast<std::uint64_t>(s_->start_ + s_->regular_size_);
}

void input_file::set_nocache(bool on) noexcept {
    s_->nocache_ = on;
}

bool input_file::nocache() const noexcept {
    return s_->nocache_;
}

const std::string& input_file::name() const noexcept {
    return s_->name_;
}

int input_file::fd() const noexcept {
    return s_->fd_;
}

result<input_file> input_file::open(const std::string& path) {
    if (is_std_stream(path)) {
        struct stat st {};
        if (fstat(0, &st) != 0) return io_fail("standard input", "cannot stat", errno);
        // A script may have read part of it already: the input is what remains.
        const std::int64_t size = io_detail::random_access_size(0, st);
        const off_t at = size >= 0 ? ::lseek(0, 0, SEEK_CUR) : 0;
        const std::int64_t start = at > 0 ? std::min<std::int64_t>(at, size) : 0;
        auto s = std::make_unique<state>(0, "standard input", size < 0 ? -1 : size - start, start);
        s->remember_version(st);
        return input_file(std::move(s));
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
    if (auto settled = io_detail::refuse_unfinished_update(fd, path, st); !settled) {
        ::close(fd);
        return std::move(settled).err();
    }
    auto s = std::make_unique<state>(fd, path, io_detail::random_access_size(fd, st), 0);
    s->remember_version(st);
    return input_file(std::move(s));
}

result<void> input_file::check_unchanged() const {
    if (!s_->regular_) return {};
    struct stat st {};
    if (::fstat(s_->fd_, &st) != 0) return io_fail(s_->name_, "cannot stat", errno);
    if (st.st_size == s_->opened_size_ && st.st_mtim.tv_sec == s_->opened_mtime_s_ &&
        st.st_mtim.tv_nsec == s_->opened_mtime_ns_)
        return {};
    return fail(errc::io_error, s_->name_ +
                                    ": the file was written while it was read (its modification time or size "
                                    "changed): what was read mixes old and new data, so no output is made from it");
}

void input_file::seek_past(std::uint64_t n) noexcept {
    if (s_->regular_size_ >= 0)
        ::lseek(s_->fd_, static_cast<off_t>(s_->start_ + static_cast<std::int64_t>(n)), SEEK_SET);
}

result<std::size_t> input_file::read_full(std::span<std::uint8_t> out) {
    std::size_t got = 0;
    while (got < out.size()) {
        const ssize_t r = posix_io::read_some(s_->fd_, out.data() + got, out.size() - got);
        if (r == 0) break;
        if (r < 0) return io_fail(s_->name_, "read failed", errno);
        got += static_cast<std::size_t>(r);
    }
    s_->read_pos_ += static_cast<std::int64_t>(got);
    // Drop whole 2 MiB units already read: the page cache keeps large folios,
    // which a smaller range would not release.
    const std::int64_t done = s_->read_pos_ & ~((std::int64_t{2} << 20) - 1);
    if (s_->nocache_ && done > s_->dropped_to_) {
        posix_fadvise(s_->fd_, s_->dropped_to_, done - s_->dropped_to_, POSIX_FADV_DONTNEED);
        s_->dropped_to_ = done;
    }
    return got;
}

file_basis::file_basis(const input_file& file, origin from)
    : fd_(file.fd()),
      name_(file.name()),
      size_(from == origin::file_start ? file.whole_size() : file.size()),
      offset_(from == origin::file_start ? 0 : static_cast<std::uint64_t>(file.start_offset())),
      nocache_(file.nocache()) {}

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
    // No file reaches past 2^63 - 1 bytes (off_t): a read there finds the end, where
    // pread would refuse the offset (EINVAL) and a COPY would look like an I/O error.
    constexpr std::uint64_t max_offset = static_cast<std::uint64_t>(std::numeric_limits<off_t>::max());
    if (pos >= max_offset - offset_) return std::size_t{0};
    out = out.first(static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), max_offset - offset_ - pos)));
    const ssize_t r = posix_io::pread_some(fd_, out.data(), out.size(), offset_ + pos);
    if (r > 0 && nocache_) drop_behind(offset_ + pos + static_cast<std::uint64_t>(r));
    if (r == 0 && size_ && pos < *size_ && !out.empty())
        return fail(errc::input_ended, name_ + ": the file became shorter while it was read");
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno == ESPIPE)
        return fail(errc::io_error, name_ + ": the basis must be seekable to COPY from it (it is a pipe)");
    return io_fail(name_, "read failed", errno);
}

bool file_basis::is_hole(std::uint64_t pos, std::uint64_t len) {
    return io_detail::hole_at(fd_, offset_ + pos, len);
}

std::optional<std::uint64_t> file_basis::size() const {
    return size_;
}

}  // namespace rdelta
