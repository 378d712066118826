// test_update_marker.cpp - the note a half-updated file carries: read back only
// for the inode it was written on, and only when it names a present journal or
// staging file, under a name of its kind, that a trusted user owns.
#include "test_helpers.hpp"

#include "inplace/update_marker.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

using namespace rdelta::io_detail;
namespace fs = std::filesystem;

namespace {

using rdelta::test::temp_dir;

struct open_file {
    int fd = -1;
    struct stat st {};
    explicit open_file(const fs::path& p) {
        std::ofstream(p).put('x');
        fd = ::open(p.c_str(), O_RDWR | O_CLOEXEC);
        REQUIRE(fd >= 0);
        REQUIRE(::fstat(fd, &st) == 0);
    }
    ~open_file() { ::close(fd); }
    bool mark(update_kind kind, const std::string& path, std::uint64_t nonce = 0) {
        return set_update_marker(fd, st.st_dev, st.st_ino, kind, path, false, nonce) == 0;
    }
    void raw(const std::string& value) {
        REQUIRE(::fsetxattr(fd, "user.rdelta.unfinished", value.data(), value.size(), 0) == 0);
    }
    std::string id() const { return std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " "; }
};

bool has_attributes(const fs::path& dir) {
    open_file f(dir / "probe");
    return ::fsetxattr(f.fd, "user.rdelta.probe", "1", 1, 0) == 0;
}

}  // namespace

TEST_CASE("update marker: set, read under any name, cleared" *
          doctest::skip(!rdelta::test::temp_has_user_attributes())) {
    temp_dir dir;
    REQUIRE(has_attributes(dir.path));
    const std::string journal = (dir.path / ".img.rdelta-journal").string();
    std::ofstream(journal).put('j');
    open_file img(dir.path / "img");
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    REQUIRE(img.mark(update_kind::journal, journal));
    auto m = read_update_marker(img.fd, img.st);
    REQUIRE(m);
    CHECK(m->kind == update_kind::journal);
    CHECK(m->path == journal);
    // Renamed, or reached through another hard link: the same inode, the same note.
    fs::rename(dir.path / "img", dir.path / "renamed");
    fs::create_directory(dir.path / "elsewhere");
    fs::create_hard_link(dir.path / "renamed", dir.path / "elsewhere" / "link");
    auto by_path = read_update_marker((dir.path / "elsewhere" / "link").string(), img.st);
    REQUIRE(by_path);
    CHECK(by_path->path == journal);
    clear_update_marker(img.fd);
    CHECK_FALSE(read_update_marker(img.fd, img.st));
}

TEST_CASE("update marker: a rewrite's staging file, a relative name made absolute" *
          doctest::skip(!rdelta::test::temp_has_user_attributes())) {
    temp_dir dir;
    REQUIRE(has_attributes(dir.path));
    std::ofstream(dir.path / ".f.rdelta-rewrite").put('s');
    open_file f(dir.path / "f");
    {
        open_file staging(dir.path / ".f.rdelta-rewrite");
        REQUIRE(tag_staging_file(staging.fd, f.st.st_dev, f.st.st_ino));
    }
    const fs::path cwd = fs::current_path();
    fs::current_path(dir.path);
    const bool marked = f.mark(update_kind::rewrite, ".f.rdelta-rewrite");
    fs::current_path(cwd);
    REQUIRE(marked);
    auto m = read_update_marker(f.fd, f.st);
    REQUIRE(m);
    CHECK(m->kind == update_kind::rewrite);
    CHECK(m->path == (dir.path / ".f.rdelta-rewrite").string());
}

TEST_CASE("update marker: an in-place patch without a journal names no file" *
          doctest::skip(!rdelta::test::temp_has_user_attributes())) {
    temp_dir dir;
    REQUIRE(has_attributes(dir.path));
    open_file img(dir.path / "img");
    REQUIRE(img.mark(update_kind::unjournaled, ""));
    auto m = read_update_marker(img.fd, img.st);
    REQUIRE(m);
    CHECK(m->kind == update_kind::unjournaled);
    CHECK(m->path.empty());
    img.raw("1 unjournaled " + img.id() + "/etc/passwd");
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    open_file copy(dir.path / "copy");
    copy.raw("1 unjournaled " + img.id());
    CHECK_FALSE(read_update_marker(copy.fd, copy.st));
}

TEST_CASE("update marker: a note that is not this file's, or names nothing rdelta made, is no note" *
          doctest::skip(!rdelta::test::temp_has_user_attributes())) {
    temp_dir dir;
    REQUIRE(has_attributes(dir.path));
    const std::string journal = (dir.path / ".img.rdelta-journal").string();
    const std::string staging = (dir.path / ".img.rdelta-rewrite").string();
    std::ofstream(journal).put('j');
    std::ofstream(staging).put('s');
    open_file img(dir.path / "img");
    open_file copy(dir.path / "copy");
    // A copy that kept the attributes (cp -a) is another inode.
    copy.raw("1 journal " + img.id() + journal);
    CHECK_FALSE(read_update_marker(copy.fd, copy.st));
    copy.raw("1 journal " + copy.id() + journal);
    CHECK(read_update_marker(copy.fd, copy.st));
    // The kinds' names: recovery never copies in or replays an unrelated file.
    img.raw("1 rewrite " + img.id() + "/etc/passwd");
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    img.raw("1 journal " + img.id() + staging);
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    img.raw("1 rewrite " + img.id() + journal);
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    // A staging file is taken only when tagged for this very inode: a file someone
    // can write must not name another file's staging file and have it copied in.
    img.raw("1 rewrite " + img.id() + staging);
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    {
        open_file s(staging);
        REQUIRE(tag_staging_file(s.fd, copy.st.st_dev, copy.st.st_ino));
        CHECK_FALSE(read_update_marker(img.fd, img.st));
        REQUIRE(tag_staging_file(s.fd, img.st.st_dev, img.st.st_ino));
    }
    CHECK(read_update_marker(img.fd, img.st));
    // Gone, relative, a folder, malformed, another version.
    img.raw("1 journal " + img.id() + (dir.path / ".gone.rdelta-journal").string());
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    img.raw("1 journal " + img.id() + ".img.rdelta-journal");
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    fs::create_directory(dir.path / ".dir.rdelta-journal");
    img.raw("1 journal " + img.id() + (dir.path / ".dir.rdelta-journal").string());
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    img.raw("1 journal 12 " + journal);
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    img.raw("2 journal " + img.id() + journal);  // no nonce
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    img.raw("3 journal " + img.id() + "00000000000000ff " + journal);
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    img.raw("1 undo " + img.id() + journal);
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    // A symlink under the name is not a journal.
    fs::create_symlink(journal, dir.path / ".link.rdelta-journal");
    img.raw("1 journal " + img.id() + (dir.path / ".link.rdelta-journal").string());
    CHECK_FALSE(read_update_marker(img.fd, img.st));
    // Someone else's file under the name (in a shared folder anyone can make one).
    if (::geteuid() == 0) {
        REQUIRE(::chown(journal.c_str(), 65534, 65534) == 0);
        img.raw("1 journal " + img.id() + journal);
        CHECK_FALSE(read_update_marker(img.fd, img.st));
    }
}

TEST_CASE("update marker: a journal's note carries its nonce (version 2); version 1 notes are still read" *
          doctest::skip(!rdelta::test::temp_has_user_attributes())) {
    temp_dir dir;
    REQUIRE(has_attributes(dir.path));
    const std::string journal = (dir.path / ".img.rdelta-journal").string();
    std::ofstream(journal).put('j');
    open_file img(dir.path / "img");
    const std::uint64_t nonce = 0x0123456789abcdefULL;
    CHECK(claim_of_journal(img.fd, img.st, nonce) == journal_claim::stale);  // no note: no update in progress
    REQUIRE(img.mark(update_kind::journal, journal, nonce));
    char value[512];
    const ssize_t n = ::fgetxattr(img.fd, "user.rdelta.unfinished", value, sizeof value);
    REQUIRE(n > 0);
    CHECK(std::string(value, static_cast<std::size_t>(n)) == "2 journal " + img.id() + "0123456789abcdef " + journal);
    auto m = read_update_marker(img.fd, img.st);
    REQUIRE(m);
    CHECK(m->kind == update_kind::journal);
    CHECK(m->path == journal);
    CHECK(m->nonce == nonce);
    CHECK(claim_of_journal(img.fd, img.st, nonce) == journal_claim::current);
    CHECK(claim_of_journal(img.fd, img.st, nonce ^ 1) == journal_claim::stale);
    // Version 1, as earlier versions wrote it: no nonce, the journal is taken by name.
    img.raw("1 journal " + img.id() + journal);
    m = read_update_marker(img.fd, img.st);
    REQUIRE(m);
    CHECK_FALSE(m->nonce);
    CHECK(claim_of_journal(img.fd, img.st, 99) == journal_claim::current);
    // A nonce that is not exactly 16 lower-case hex digits: no note.
    for (const std::string bad : {"0123456789abcde ", "0123456789ABCDEF ", "+123456789abcdef ", "0123456789abcdef0 "}) {
        img.raw("2 journal " + img.id() + bad + journal);
        CHECK_FALSE(read_update_marker(img.fd, img.st));
        CHECK(claim_of_journal(img.fd, img.st, nonce) == journal_claim::stale);
    }
    // Another kind of update, or another file's note (a copy that kept it): stale.
    img.raw("1 unjournaled " + img.id());
    CHECK(claim_of_journal(img.fd, img.st, nonce) == journal_claim::stale);
    open_file copy(dir.path / "copy");
    copy.raw("2 journal " + img.id() + "0123456789abcdef " + journal);
    CHECK(claim_of_journal(copy.fd, copy.st, nonce) == journal_claim::stale);
}
