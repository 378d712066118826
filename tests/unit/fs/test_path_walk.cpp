// test_path_walk.cpp - an image opened once: its name walked component by
// component (symlinks, "..", relative names), its folder held, a name that is
// not a file refused; and the record that stops a delta without trailer from
// being applied twice to an in_place_fd.
#include "test_helpers.hpp"

#include "fs/path_walk.hpp"

#include <rdelta/file.hpp>
#include <rdelta/journal.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>

using namespace rdelta;
namespace fs = std::filesystem;

namespace {

struct temp_dir {
    fs::path path;
    temp_dir() {
        std::string pattern = (fs::temp_directory_path() / "rdelta-walk-XXXXXX").string();
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        path = pattern;
    }
    ~temp_dir() { fs::remove_all(path); }
};

void write_file(const fs::path& path, const test::bytes& data) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

ino_t inode_of(const fs::path& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_ino;
}

// A delta of literal data only, without trailer: it applies to any file.
test::bytes literal_delta(const test::bytes& data) {
    test::bytes d = {0x72, 0x73, 0x02, 0x36, 0x43};  // magic, LITERAL with a 4-byte length
    for (int shift = 24; shift >= 0; shift -= 8) d.push_back(static_cast<std::uint8_t>(data.size() >> shift));
    d.insert(d.end(), data.begin(), data.end());
    d.push_back(0);  // END
    return d;
}

delta_opener opener_of(const test::bytes& delta) {
    return [&delta]() -> result<std::unique_ptr<byte_source>> {
        return std::unique_ptr<byte_source>(std::make_unique<memory_source>(delta, "delta"));
    };
}

}  // namespace

TEST_CASE("open_walked: the file a name leads to, through symlinks, '..' and relative names, with its folder") {
    temp_dir dir;
    fs::create_directories(dir.path / "a" / "b");
    write_file(dir.path / "a" / "b" / "img", test::random_bytes(100, 1));
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

TEST_CASE("in_place_fd: the journal is found through the folder it was opened in, not by name") {
    temp_dir dir;
    fs::create_directory(dir.path / "first");
    const auto img = dir.path / "first" / "img";
    write_file(img, test::random_bytes(5000, 2));
    auto image = in_place_fd::open(img.string());
    REQUIRE(image);
    // The folder is renamed and its name taken by another folder meanwhile.
    fs::rename(dir.path / "first", dir.path / "moved");
    fs::create_directory(dir.path / "first");
    auto journal = open_journal_file(*image);
    REQUIRE(journal);
    REQUIRE((*journal)->create());
    CHECK(fs::exists(dir.path / "moved" / ".img.rdelta-journal"));
    CHECK(!fs::exists(dir.path / "first" / ".img.rdelta-journal"));
    REQUIRE((*journal)->remove());
    CHECK(!fs::exists(dir.path / "moved" / ".img.rdelta-journal"));
}

TEST_CASE("in place: a delta without trailer is remembered and refused on the unchanged file" *
          doctest::skip(!rdelta::test::temp_has_user_attributes())) {
    temp_dir dir;
    const auto img = dir.path / "img";
    write_file(img, test::random_bytes(9000, 3));
    const auto next = test::random_bytes(7000, 4);
    const auto delta = literal_delta(next);
    in_place_options o;
    auto image = in_place_fd::open(img.string());
    REQUIRE(image);
    REQUIRE(image->can_remember_applied());
    REQUIRE(patch_in_place(opener_of(delta), *image, o));
    const auto last = image->last_applied();
    REQUIRE(last);
    CHECK(last->size == next.size());
    auto again = in_place_fd::open(img.string());
    REQUIRE(again);
    auto refused = patch_in_place(opener_of(delta), *again, o);
    REQUIRE(!refused);
    CHECK(refused.err().code == errc::corrupt);
    CHECK(refused.err().message.find("already applied") != std::string::npos);
    // Another delta applies; once the file changed, the first one applies again.
    CHECK(patch_in_place(opener_of(literal_delta(test::random_bytes(100, 5))), *again, o));
    CHECK(patch_in_place(opener_of(delta), *again, o));
    // A write by anyone else makes the record stale too.
    { std::ofstream(img, std::ios::binary | std::ios::in | std::ios::out).write("x", 1); }
    auto changed = in_place_fd::open(img.string());
    REQUIRE(changed);
    CHECK(!changed->last_applied());
}

TEST_CASE("in place: a delta without trailer is refused where the file cannot remember it, unless allowed") {
    struct forgetful final : in_place_file {
        test::bytes b = test::random_bytes(1000, 6);
        std::uint64_t size() const override { return b.size(); }
        result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
            const auto n = pos >= b.size() ? 0 : std::min<std::size_t>(out.size(), b.size() - pos);
            std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(pos), n, out.begin());
            return n;
        }
        result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) override {
            if (pos + bytes.size() > b.size()) b.resize(pos + bytes.size());
            std::copy(bytes.begin(), bytes.end(), b.begin() + static_cast<std::ptrdiff_t>(pos));
            return {};
        }
        result<void> resize(std::uint64_t n) override {
            b.resize(n);
            return {};
        }
    } file;
    const auto next = test::random_bytes(500, 7);
    in_place_options o;
    auto refused = patch_in_place(opener_of(literal_delta(next)), file, o);
    REQUIRE(!refused);
    CHECK(refused.err().code == errc::io_error);
    CHECK(file.b == test::random_bytes(1000, 6));
    o.allow_unrecorded = true;
    REQUIRE(patch_in_place(opener_of(literal_delta(next)), file, o));
    CHECK(file.b == next);
}
