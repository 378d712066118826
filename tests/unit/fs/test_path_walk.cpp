// test_path_walk.cpp - an image opened once: its name walked component by
// component (symlinks, "..", relative names), its folder held, a name that is
// not a file refused.
#include "test_helpers.hpp"

#include "fs/path_walk.hpp"

#include <rdelta/file.hpp>
#include <rdelta/journal.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>

#include <doctest/doctest.h>

using namespace rdelta;
namespace fs = std::filesystem;

namespace {

using rdelta::test::temp_dir;

ino_t inode_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_ino;
}

}  // namespace

TEST_CASE("open_walked: the file a name leads to, through symlinks, '..' and relative names, with its folder") {
    temp_dir dir;
    fs::create_directories(dir.path / "a" / "b");
    test::write_file(dir.path / "a" / "b" / "img", test::random_bytes(100, 1));
    fs::create_symlink("b/img", dir.path / "a" / "rel-link");
    fs::create_symlink(dir.path / "a", dir.path / "dir-link");
    fs::create_symlink("../rel-link", dir.path / "a" / "b" / "chain");
    const auto want = inode_of(dir.path / "a" / "b" / "img");
    for (const auto& name :
         {dir.path / "a" / "b" / "img", dir.path / "a" / "rel-link", dir.path / "dir-link" / "b" / "img",
          dir.path / "a" / "b" / ".." / "b" / "img", dir.path / "a" / "b" / "chain"}) {
        CAPTURE(name);
        auto f = io_detail::open_walked(name.string(), O_RDONLY, "cannot open");
        REQUIRE(f);
        CHECK(f->st.st_ino == want);
        CHECK(f->base == "img");
        struct stat in_folder {};
        REQUIRE(::fstatat(f->folder, "img", &in_folder, AT_SYMLINK_NOFOLLOW) == 0);
        CHECK(in_folder.st_ino == want);
    }
    const auto cwd = fs::current_path();
    fs::current_path(dir.path / "a");
    auto rel = io_detail::open_walked("rel-link", O_RDONLY, "cannot open");
    fs::current_path(cwd);
    REQUIRE(rel);
    CHECK(rel->st.st_ino == want);
}

TEST_CASE("open_walked: missing names, folders, loops fail naming the file") {
    temp_dir dir;
    fs::create_symlink("loop", dir.path / "loop");
    for (const auto& name : {dir.path / "missing", dir.path / "loop", dir.path}) {
        auto f = io_detail::open_walked(name.string(), O_RDWR, "cannot open for reading and writing");
        REQUIRE(!f);
        CHECK(f.err().code == errc::io_error);
        CHECK(f.err().message.find(name.string()) == 0);
    }
}
