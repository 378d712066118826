// push_io.cpp - temporary files and stream copies for push (push_io.hpp).
#include "push_io.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <span>
#include <utility>
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

namespace {

void keep_tail(std::vector<std::uint8_t>& tail, std::span<const std::uint8_t> bytes) {
    constexpr std::size_t tail_bytes = 64;
    tail.insert(tail.end(), bytes.begin(), bytes.end());
    if (tail.size() > tail_bytes) tail.erase(tail.begin(), tail.end() - static_cast<std::ptrdiff_t>(tail_bytes));
}

}  // namespace

copy_outcome copy_stream(int from, int to, const compression_options& compression, std::uint64_t& counted,
                         std::vector<std::uint8_t>* tail) {
    copy_outcome outcome;
    auto writer =
        compressing_writer::open(compression, "the delta sent", [&](std::span<const std::uint8_t> b) -> result<void> {
            if (!write_all(to, b.data(), b.size())) {
                outcome.to_refused = true;
                return fail(errc::io_error, "ssh refused the delta");
            }
            counted += b.size();
            return {};
        });
    if (!writer) return outcome.failed = std::move(writer).err(), outcome;
    // The sink's own failure is ssh gone (to_refused); any other is the compressor's.
    const auto failed = [&](error e) {
        if (!outcome.to_refused) outcome.failed = std::move(e);
        return outcome;
    };
    std::vector<std::uint8_t> buf(std::size_t{256} << 10);
    for (;;) {
        const ssize_t got = ::read(from, buf.data(), buf.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        const std::span<const std::uint8_t> bytes(buf.data(), static_cast<std::size_t>(got));
        if (auto put = writer->write(bytes); !put) return failed(std::move(put).err());
        if (tail) keep_tail(*tail, bytes);
    }
    if (auto done = writer->finish(); !done) return failed(std::move(done).err());
    return outcome;
}

}  // namespace rdelta::cli
