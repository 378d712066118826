// push_io.cpp - temporary files and stream copies for push (push_io.hpp).
#include "push_io.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cstdio>
#include <span>
#include <utility>
#include <vector>

namespace rdelta::cli {

posix_io::unique_fd temp_file() {
    std::FILE* f = std::tmpfile();
    if (!f) return posix_io::unique_fd();
    posix_io::unique_fd fd(::fcntl(fileno(f), F_DUPFD_CLOEXEC, 3));
    std::fclose(f);
    return fd;
}

std::string read_all(int fd) {
    std::string text;
    char buf[4096];
    for (std::uint64_t at = 0;;) {
        const ssize_t got = posix_io::pread_some(fd, buf, sizeof buf, at);
        if (got <= 0) break;
        text.append(buf, static_cast<std::size_t>(got)), at += static_cast<std::uint64_t>(got);
    }
    return text;
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
            if (posix_io::write_all(to, b.data(), b.size()) != 0) {
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
        const ssize_t got = posix_io::read_some(from, buf.data(), buf.size());
        if (got <= 0) break;
        const std::span<const std::uint8_t> bytes(buf.data(), static_cast<std::size_t>(got));
        if (auto put = writer->write(bytes); !put) return failed(std::move(put).err());
        if (tail) keep_tail(*tail, bytes);
    }
    if (auto done = writer->finish(); !done) return failed(std::move(done).err());
    return outcome;
}

}  // namespace rdelta::cli
