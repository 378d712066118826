// posix_io.hpp - reading and writing descriptors with the retries POSIX asks for:
// a call interrupted by a signal (EINTR) is made again, a short write goes on where
// it stopped, and an owned descriptor is closed once. Errors stay errno values for
// the caller to name (its file, its words).
#pragma once

#include <sys/types.h>
#include <unistd.h>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace rdelta::posix_io {

/// A descriptor owned alone, closed by the destructor.
class unique_fd {
public:
    unique_fd() = default;
    explicit unique_fd(int fd) noexcept : fd_(fd) {}
    unique_fd(unique_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    unique_fd& operator=(unique_fd&& o) noexcept {
        if (this != &o) reset(std::exchange(o.fd_, -1));
        return *this;
    }
    unique_fd(const unique_fd&) = delete;
    unique_fd& operator=(const unique_fd&) = delete;
    ~unique_fd() { reset(); }

    int get() const noexcept { return fd_; }
    explicit operator bool() const noexcept { return fd_ >= 0; }
    /// Give up ownership without closing.
    int release() noexcept { return std::exchange(fd_, -1); }
    /// Close the one held (if any) and hold `fd`.
    void reset(int fd = -1) noexcept {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

/// `call()` again while it fails with EINTR.
template <class Call>
auto retrying(Call call) {
    for (;;) {
        const auto r = call();
        if (r >= 0 || errno != EINTR) return r;
    }
}

/// One pread: the bytes read (0 at the end), or -1 with errno.
inline ssize_t pread_some(int fd, void* buf, std::size_t n, std::uint64_t at) {
    return retrying([&] { return ::pread(fd, buf, n, static_cast<off_t>(at)); });
}

/// One read: the bytes read (0 at the end), or -1 with errno.
inline ssize_t read_some(int fd, void* buf, std::size_t n) {
    return retrying([&] { return ::read(fd, buf, n); });
}

/// Read until `n` bytes or the end: the count, or -1 with errno.
inline ssize_t read_full(int fd, void* buf, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = read_some(fd, static_cast<char*>(buf) + got, n - got);
        if (r < 0) return -1;
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return static_cast<ssize_t>(got);
}

/// Read at `at` until `n` bytes or the end: the count, or -1 with errno.
inline ssize_t pread_full(int fd, void* buf, std::size_t n, std::uint64_t at) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = pread_some(fd, static_cast<char*>(buf) + got, n - got, at + got);
        if (r < 0) return -1;
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return static_cast<ssize_t>(got);
}

/// Write all `n` bytes at `at`: 0, or the errno of the failing call.
inline int pwrite_all(int fd, const void* buf, std::size_t n, std::uint64_t at) {
    const char* p = static_cast<const char*>(buf);
    while (n > 0) {
        const ssize_t w = retrying([&] { return ::pwrite(fd, p, n, static_cast<off_t>(at)); });
        if (w < 0) return errno;
        if (w == 0) return EIO;
        p += w, n -= static_cast<std::size_t>(w), at += static_cast<std::uint64_t>(w);
    }
    return 0;
}

/// Write all `n` bytes at the file position: 0, or the errno of the failing call.
inline int write_all(int fd, const void* buf, std::size_t n) {
    const char* p = static_cast<const char*>(buf);
    while (n > 0) {
        const ssize_t w = retrying([&] { return ::write(fd, p, n); });
        if (w < 0) return errno;
        if (w == 0) return EIO;
        p += w, n -= static_cast<std::size_t>(w);
    }
    return 0;
}

}  // namespace rdelta::posix_io
