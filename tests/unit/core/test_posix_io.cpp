// test_posix_io.cpp - the descriptor helpers: whole writes through a pipe that
// takes them in pieces, reads to the end, and a descriptor closed once.
#include "core/posix_io.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
#include <numeric>
#include <thread>
#include <vector>

using namespace rdelta::posix_io;

TEST_CASE("posix_io: write_all and read_full move every byte through a pipe that takes them in pieces") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    unique_fd in(fds[0]), out(fds[1]);
    std::vector<unsigned char> sent(1 << 20);  // far more than a pipe holds at once
    std::iota(sent.begin(), sent.end(), 0);
    std::thread writer([&] {
        CHECK(write_all(out.get(), sent.data(), sent.size()) == 0);
        out.reset();  // the reader then sees the end
    });
    std::vector<unsigned char> got(sent.size() + 100);
    const ssize_t n = read_full(in.get(), got.data(), got.size());
    writer.join();
    REQUIRE(n == static_cast<ssize_t>(sent.size()));
    got.resize(static_cast<std::size_t>(n));
    CHECK(got == sent);
}

TEST_CASE("posix_io: pwrite_all and pread_some at offsets; errors are errno values") {
    char name[] = "/tmp/rdelta-posix-io-XXXXXX";
    unique_fd f(::mkstemp(name));
    REQUIRE(f);
    ::unlink(name);
    const char text[] = "hello, world";
    CHECK(pwrite_all(f.get(), text, sizeof text, 1000) == 0);
    char back[sizeof text] = {};
    CHECK(pread_some(f.get(), back, sizeof back, 1000) == static_cast<ssize_t>(sizeof text));
    CHECK(std::string(back) == text);
    CHECK(pread_some(f.get(), back, sizeof back, 5000) == 0);  // past the end
    CHECK(pwrite_all(-1, text, sizeof text, 0) == EBADF);
    CHECK(read_some(-1, back, sizeof back) == -1);
}

TEST_CASE("posix_io: pread_full reads up to the end from an offset, leaving the file position alone") {
    char name[] = "/tmp/rdelta-posix-io-XXXXXX";
    unique_fd f(::mkstemp(name));
    REQUIRE(f);
    ::unlink(name);
    std::vector<unsigned char> data(300000);
    std::iota(data.begin(), data.end(), 0);
    REQUIRE(write_all(f.get(), data.data(), data.size()) == 0);
    std::vector<unsigned char> back(data.size());
    CHECK(pread_full(f.get(), back.data(), 1000, 7) == 1000);
    CHECK(std::equal(back.begin(), back.begin() + 1000, data.begin() + 7));
    CHECK(pread_full(f.get(), back.data(), back.size(), 100) == static_cast<ssize_t>(data.size() - 100));
    CHECK(std::equal(data.begin() + 100, data.end(), back.begin()));
    CHECK(pread_full(f.get(), back.data(), 10, data.size()) == 0);
    CHECK(::lseek(f.get(), 0, SEEK_CUR) == static_cast<off_t>(data.size()));  // where write_all left it
    CHECK(pread_full(-1, back.data(), 10, 0) == -1);
}

TEST_CASE("posix_io: unique_fd closes what it holds once, and gives it up on release") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    {
        unique_fd a(fds[0]);
        unique_fd b(std::move(a));
        CHECK_FALSE(a);
        CHECK(b.get() == fds[0]);
    }
    CHECK(::fcntl(fds[0], F_GETFD) == -1);  // closed by b
    unique_fd c(fds[1]);
    const int raw = c.release();
    CHECK(::fcntl(raw, F_GETFD) != -1);  // still open: released, not closed
    ::close(raw);
}
