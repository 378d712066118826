// test_in_place_fd.cpp - the image layer: a file opened once for an in-place
// patch (its journal found through the folder it was opened in, its lock, its
// holes), the record that stops a delta without trailer from being applied twice,
// and an image's history folder followed only when it is the caller's own.
#include "in_place_delta.hpp"
#include "paged_file.hpp"
#include "test_helpers.hpp"

#include <rdelta/file.hpp>
#include <rdelta/history.hpp>
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

using rdelta::test::temp_dir;

// A delta of literal data only, without trailer: it applies to any file.
test::bytes literal_delta(const test::bytes& data) {
    test::bytes d = {0x72, 0x73, 0x02, 0x36, 0x43};  // magic, LITERAL with a 4-byte length
    for (int shift = 24; shift >= 0; shift -= 8) d.push_back(static_cast<std::uint8_t>(data.size() >> shift));
    d.insert(d.end(), data.begin(), data.end());
    d.push_back(0);  // END
    return d;
}

// Whether the temporary folder's file system keeps holes (SEEK_DATA skips them).
bool temp_keeps_holes() {
    static const bool keeps = [] {
        std::string name = (fs::temp_directory_path() / "rdelta-hole-probe-XXXXXX").string();
        const int fd = ::mkstemp(name.data());
        if (fd < 0) return false;
        ::unlink(name.c_str());
        const bool ok = ::pwrite(fd, "x", 1, 1 << 20) == 1 && ::lseek(fd, 0, SEEK_DATA) > 0;
        ::close(fd);
        return ok;
    }();
    return keeps;
}

}  // namespace

TEST_CASE("in_place_fd: a name that is no regular file is refused; the lock is exclusive") {
    temp_dir dir;
    auto folder = in_place_fd::open(dir.path.string());
    REQUIRE_FALSE(folder);
    CHECK(folder.err().code == errc::io_error);
    // A FIFO: refused without blocking on it.
    REQUIRE(::mkfifo((dir.path / "fifo").c_str(), 0600) == 0);
    auto fifo = in_place_fd::open((dir.path / "fifo").string());
    REQUIRE_FALSE(fifo);
    CHECK(fifo.err().message.find("not a regular file") != std::string::npos);
    const auto img = dir.path / "img";
    test::write_file(img, test::random_bytes(3000, 1));
    auto first = in_place_fd::open(img.string());
    auto second = in_place_fd::open(img.string());
    REQUIRE(first);
    REQUIRE(second);
    REQUIRE(first->lock());
    auto refused = second->lock();
    REQUIRE_FALSE(refused);
    CHECK(refused.err().message.find("locked") != std::string::npos);
}

TEST_CASE("in_place_fd: holes are reported as holes, punched back, and writes grow the file" *
          doctest::skip(!temp_keeps_holes())) {
    temp_dir dir;
    const auto img = dir.path / "img";
    {
        std::ofstream f(img, std::ios::binary);
        f.seekp(1 << 20);
        f.write("data", 4);
    }
    auto image = in_place_fd::open(img.string());
    REQUIRE(image);
    CHECK(image->size() == (1u << 20) + 4);
    const auto [hole, run] = image->extent(0, 1 << 20);
    CHECK(hole);
    CHECK(run == (1u << 20));
    CHECK(image->is_hole(4096, 65536));
    const test::bytes block(4096, 7);
    REQUIRE(image->write(8192, block));
    CHECK_FALSE(image->is_hole(8192, 4096));
    REQUIRE(image->punch_hole(8192, 4096));
    CHECK(image->is_hole(8192, 4096));
    std::uint8_t back[4] = {1, 1, 1, 1};
    REQUIRE(image->read(8192, back));
    CHECK((back[0] == 0 && back[3] == 0));
    REQUIRE(image->write(image->size(), block));
    CHECK(image->size() == (1u << 20) + 4 + 4096);
}

TEST_CASE("history: the image's own folder is made 0700 and followed; another owner's or a symlink is refused") {
    temp_dir dir;
    const auto img = dir.path / "img";
    test::write_file(img, test::random_bytes(3000, 2));
    auto image = in_place_fd::open(img.string());
    REQUIRE(image);
    auto none = history::open(*image, "", false);
    REQUIRE(none);
    CHECK(*none == nullptr);  // none yet, none made
    auto made = history::open(*image, "", true);
    REQUIRE(made);
    REQUIRE(*made != nullptr);
    struct stat st {};
    REQUIRE(::stat((dir.path / ".img.rdelta-history").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    auto points = (*made)->points();
    REQUIRE(points);
    CHECK(points->empty());
    // Opened to others: refused, left as it is.
    REQUIRE(::chmod((dir.path / ".img.rdelta-history").c_str(), 0755) == 0);
    auto open_to_others = history::open(*image, "", false);
    REQUIRE_FALSE(open_to_others);
    CHECK(open_to_others.err().message.find("not followed") != std::string::npos);
    // A symlink in its place: refused, its target untouched.
    fs::remove_all(dir.path / ".img.rdelta-history");
    fs::create_directory(dir.path / "elsewhere");
    REQUIRE(::chmod((dir.path / "elsewhere").c_str(), 0700) == 0);
    fs::create_directory_symlink(dir.path / "elsewhere", dir.path / ".img.rdelta-history");
    auto linked = history::open(*image, "", true);
    REQUIRE_FALSE(linked);
    CHECK(linked.err().message.find("symbolic link") != std::string::npos);
    CHECK(fs::is_empty(dir.path / "elsewhere"));
}

TEST_CASE("in_place_fd: the journal is found through the folder it was opened in, not by name") {
    temp_dir dir;
    fs::create_directory(dir.path / "first");
    const auto img = dir.path / "first" / "img";
    test::write_file(img, test::random_bytes(5000, 2));
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
    test::write_file(img, test::random_bytes(9000, 3));
    const auto next = test::random_bytes(7000, 4);
    const auto delta = literal_delta(next);
    in_place_options o;
    auto image = in_place_fd::open(img.string());
    REQUIRE(image);
    REQUIRE(image->can_remember_applied());
    REQUIRE(patch_in_place(test::opener_of(delta), *image, o));
    const auto last = image->last_applied();
    REQUIRE(last);
    CHECK(last->size == next.size());
    auto again = in_place_fd::open(img.string());
    REQUIRE(again);
    auto refused = patch_in_place(test::opener_of(delta), *again, o);
    REQUIRE(!refused);
    CHECK(refused.err().code == errc::corrupt);
    CHECK(refused.err().message.find("already applied") != std::string::npos);
    // Another delta applies; once the file changed, the first one applies again.
    CHECK(patch_in_place(test::opener_of(literal_delta(test::random_bytes(100, 5))), *again, o));
    CHECK(patch_in_place(test::opener_of(delta), *again, o));
    // A write by anyone else makes the record stale too.
    { std::ofstream(img, std::ios::binary | std::ios::in | std::ios::out).write("x", 1); }
    auto changed = in_place_fd::open(img.string());
    REQUIRE(changed);
    CHECK(!changed->last_applied());
}

TEST_CASE("in place: a delta without trailer is refused where the file cannot remember it, unless allowed") {
    test::paged_file file(test::random_bytes(1000, 6));  // a memory file: no record kept
    const auto next = test::random_bytes(500, 7);
    in_place_options o;
    auto refused = patch_in_place(test::opener_of(literal_delta(next)), file, o);
    REQUIRE(!refused);
    CHECK(refused.err().code == errc::io_error);
    CHECK(file.data() == test::random_bytes(1000, 6));
    CHECK(file.count.bytes_written == 0);
    o.allow_unrecorded = true;
    REQUIRE(patch_in_place(test::opener_of(literal_delta(next)), file, o));
    CHECK(file.data() == next);
}
