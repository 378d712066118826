// push_io.cpp - temporary files and stream copies for push (push_io.hpp).
#include "push_io.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <vector>

namespace rdelta::cli {

fd_holder temp_file() {
    std::FILE* f = std::tmpfile();
    if (!f) return fd_holder();
    fd_holder fd(::fcntl(fileno(f), F_DUPFD_CLOEXEC, 3));
    std::fclose(f);
    return fd;
}

std::string read_all(int fd) {
    std::string text;
    char buf[4096];
    for (off_t at = 0;;) {
        const ssize_t got = ::pread(fd, buf, sizeof buf, at);
        if (got <= 0) break;
        text.append(buf, static_cast<std::size_t>(got)), at += got;
    }
    return text;
}

bool write_all(int fd, const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
        const ssize_t put = ::write(fd, p, n);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        p += put, n -= static_cast<std::size_t>(put);
    }
    return true;
}

bool copy_stream(int from, int to, std::uint64_t& counted, std::vector<std::uint8_t>* tail) {
    constexpr std::size_t tail_bytes = 64;
    std::vector<std::uint8_t> buf(std::size_t{256} << 10);
    for (;;) {
        const ssize_t got = ::read(from, buf.data(), buf.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return true;
        if (!write_all(to, buf.data(), static_cast<std::size_t>(got))) return false;
        counted += static_cast<std::uint64_t>(got);
        if (tail) {
            tail->insert(tail->end(), buf.begin(), buf.begin() + got);
            if (tail->size() > tail_bytes)
                tail->erase(tail->begin(), tail->end() - static_cast<std::ptrdiff_t>(tail_bytes));
        }
    }
}

}  // namespace rdelta::cli
