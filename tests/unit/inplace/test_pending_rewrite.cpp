// test_pending_rewrite.cpp - finishing an inode rewrite that was cut short: the
// staging file under `.NAME.rdelta-rewrite` is copied into the file (every hard
// link sees it, the inode is kept) and removed; nothing else is ever copied in.
#include "test_helpers.hpp"

#include "inplace/update_marker.hpp"

#include <rdelta/file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>

#include <doctest/doctest.h>

using namespace rdelta;
namespace fs = std::filesystem;

namespace {

using rdelta::test::temp_dir;

// A staging file as a rewrite of `file` leaves it: tagged for that inode.
void write_staging(const fs::path& path, const test::bytes& data, const fs::path& file) {
    test::write_file(path, data);
    struct stat st {};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    const int fd = ::open(path.c_str(), O_RDONLY);
    REQUIRE(fd >= 0);
    REQUIRE(io_detail::tag_staging_file(fd, st.st_dev, st.st_ino));
    ::close(fd);
}

std::uint64_t inode(const fs::path& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_ino;
}

}  // namespace

TEST_CASE("finish_interrupted_rewrite: nothing pending is nothing to do") {
    temp_dir dir;
    test::write_file(dir.path / "f", test::random_bytes(1000, 1));
    auto done = finish_interrupted_rewrite((dir.path / "f").string());
    REQUIRE(done);
    CHECK(done->empty());
    CHECK(test::read_file(dir.path / "f") == test::random_bytes(1000, 1));
}

TEST_CASE("finish_interrupted_rewrite: the staging file is copied into the inode, shorter or longer, then removed") {
    temp_dir dir;
    for (std::size_t size : {std::size_t{0}, std::size_t{10}, std::size_t{3} << 20}) {
        const auto file = dir.path / "f", other = dir.path / "other-link", staging = dir.path / ".f.rdelta-rewrite";
        fs::remove(file), fs::remove(other);
        test::write_file(file, test::random_bytes(1 << 20, 2));
        fs::create_hard_link(file, other);
        const auto content = test::random_bytes(size, size + 3);
        write_staging(staging, content, file);
        const auto ino = inode(file);
        auto done = finish_interrupted_rewrite(file.string());
        REQUIRE(done);
        CHECK(*done == staging.string());
        CHECK(test::read_file(file) == content);
        CHECK(test::read_file(other) == content);
        CHECK(inode(file) == ino);
        CHECK(!fs::exists(staging));
    }
}

TEST_CASE("finish_interrupted_rewrite: through a symlink, the staging file beside its target") {
    temp_dir dir;
    fs::create_directory(dir.path / "real");
    test::write_file(dir.path / "real" / "f", test::random_bytes(100, 4));
    fs::create_symlink(dir.path / "real" / "f", dir.path / "link");
    write_staging(dir.path / "real" / ".f.rdelta-rewrite", test::random_bytes(200, 5), dir.path / "real" / "f");
    test::write_file(dir.path / ".link.rdelta-rewrite", test::random_bytes(300, 6));  // not the target's: ignored
    auto done = finish_interrupted_rewrite((dir.path / "link").string());
    REQUIRE(done);
    CHECK(test::read_file(dir.path / "real" / "f") == test::random_bytes(200, 5));
    CHECK(fs::exists(dir.path / ".link.rdelta-rewrite"));
}

TEST_CASE("finish_interrupted_rewrite: a symlink or a file with other links under the staging name is refused") {
    temp_dir dir;
    const auto file = dir.path / "f", staging = dir.path / ".f.rdelta-rewrite";
    test::write_file(file, test::random_bytes(100, 7));
    test::write_file(dir.path / "secret", test::random_bytes(100, 8));
    fs::create_symlink(dir.path / "secret", staging);
    auto done = finish_interrupted_rewrite(file.string());
    REQUIRE(!done);
    CHECK(done.err().code == errc::io_error);
    CHECK(done.err().message.find(staging.string()) != std::string::npos);
    CHECK(test::read_file(file) == test::random_bytes(100, 7));
    CHECK(fs::is_symlink(staging));
    fs::remove(staging);
    fs::create_hard_link(dir.path / "secret", staging);
    done = finish_interrupted_rewrite(file.string());
    REQUIRE(!done);
    CHECK(test::read_file(file) == test::random_bytes(100, 7));
    CHECK(fs::exists(staging));
}

TEST_CASE("finish_interrupted_rewrite: a name too long for the suffix uses a hashed staging name") {
    temp_dir dir;
    const std::string base(250, 'n');
    const auto file = dir.path / base;
    test::write_file(file, test::random_bytes(100, 9));
    CHECK(finish_interrupted_rewrite(file.string()).value().empty());  // nothing pending
    // Whatever the name, an output_file rewrite of a hard-linked file leaves nothing behind.
    fs::create_hard_link(file, dir.path / "second");
    auto out = output_file::create(file.string(), true);
    REQUIRE(out);
    const auto content = test::random_bytes(5000, 10);
    REQUIRE(out->write(content));
    REQUIRE(out->commit());
    CHECK(test::read_file(dir.path / "second") == content);
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}) == 2);
}
