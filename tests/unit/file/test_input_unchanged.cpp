// test_input_unchanged.cpp - input_file::check_unchanged: a file written while it
// was read (its modification time or size moved) is reported; reading it, or
// changing only its mode or access time, is not a change.
#include <rdelta/file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>

#include <doctest/doctest.h>

using namespace rdelta;
namespace fs = std::filesystem;

namespace {

struct old_file {
    fs::path path;
    old_file() {
        std::string pattern = (fs::temp_directory_path() / "rdelta-unchanged-XXXXXX").string();
        const int fd = ::mkstemp(pattern.data());
        REQUIRE(fd >= 0);
        REQUIRE(::write(fd, "0123456789", 10) == 10);
        // A time long past: any write sets the clock's time, whatever its granularity.
        const timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
        REQUIRE(::futimens(fd, times) == 0);
        ::close(fd);
        path = pattern;
    }
    ~old_file() { fs::remove(path); }
    void write_at(off_t pos, const char* bytes) const {
        const int fd = ::open(path.c_str(), O_WRONLY);
        REQUIRE(fd >= 0);
        REQUIRE(::pwrite(fd, bytes, 1, pos) == 1);
        ::close(fd);
    }
};

}  // namespace

TEST_CASE("check_unchanged: reading is no change, a write in place or a new length is") {
    old_file f;
    auto in = input_file::open(f.path.string());
    REQUIRE(in);
    std::uint8_t buf[16];
    REQUIRE(in->read_full(buf).value() == 10);
    CHECK(in->check_unchanged());
    ::chmod(f.path.c_str(), 0600);  // metadata only
    CHECK(in->check_unchanged());
    f.write_at(3, "x");
    auto changed = in->check_unchanged();
    REQUIRE(!changed);
    CHECK(changed.err().code == errc::io_error);
    CHECK(changed.err().message.find(f.path.string()) != std::string::npos);

    old_file g;
    auto again = input_file::open(g.path.string());
    REQUIRE(again);
    CHECK(again->check_unchanged());
    const timespec keep[2] = {{0, UTIME_OMIT}, {1000000000, 0}};
    fs::resize_file(g.path, 20);
    REQUIRE(::utimensat(AT_FDCWD, g.path.c_str(), keep, 0) == 0);  // mtime put back: the length still tells
    CHECK(!again->check_unchanged());
}

TEST_CASE("check_unchanged: a pipe carries no such mark") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const int saved = ::dup(0);
    ::dup2(fds[0], 0);
    auto in = input_file::open("-");
    ::dup2(saved, 0);
    ::close(saved);
    REQUIRE(in);
    CHECK(in->check_unchanged());
    ::close(fds[0]);
    ::close(fds[1]);
}
