// test_push_store.cpp - push's kept signature store: FILE.lock exists only while
// a push holds it, and a lock on a file whose name went meanwhile does not count.
#include <doctest/doctest.h>

#include "cli/push_store.hpp"
#include "test_helpers.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

namespace {

using rdelta::cli::push_store;
using rdelta::posix_io::unique_fd;

bool exists(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("push_store: FILE.lock is there while the store is open, and gone once it is closed") {
    rdelta::test::temp_dir dir;
    const std::string store = (dir.path / "disk.sig").string();
    {
        auto opened = push_store::open(store);
        REQUIRE(opened);
        CHECK(exists(store + ".lock"));
        auto again = push_store::open(store);
        REQUIRE_FALSE(again);
        CHECK(again.err().message.find("(locked)") != std::string::npos);
        CHECK(exists(store + ".lock"));  // the refused open removed nothing
        // Moved (as push keeps it), the lock is still held once.
        std::optional<push_store> kept(std::move(*opened));
        CHECK_FALSE(push_store::open(store));
    }
    CHECK_FALSE(exists(store + ".lock"));
    CHECK(std::filesystem::is_empty(dir.path));
}

TEST_CASE("push_store: a lock file a dead push left is taken and removed") {
    rdelta::test::temp_dir dir;
    const std::string store = (dir.path / "disk.sig").string();
    unique_fd stale(::open((store + ".lock").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
    REQUIRE(stale);
    stale.reset();
    {
        auto opened = push_store::open(store);
        REQUIRE(opened);
    }
    CHECK_FALSE(exists(store + ".lock"));
}

TEST_CASE("push_store: a push that opened FILE.lock just before its holder removed it does not hold the lock") {
    rdelta::test::temp_dir dir;
    const std::string store = (dir.path / "disk.sig").string(), name = store + ".lock";
    unique_fd folder(::open(dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    REQUIRE(folder);
    std::optional<push_store> first(push_store::open(store).value());
    // The second push opens the lock file the first one holds...
    auto second = push_store::lock_file::open(folder.get(), "disk.sig.lock", name);
    REQUIRE(second);
    // ... the first finishes (the name removed, the lock let go) and a third
    // takes a new FILE.lock...
    first.reset();
    CHECK_FALSE(exists(name));
    auto third = push_store::open(store);
    REQUIRE(third);
    // ... and the second's lock on the file no longer named is not the lock.
    auto held = second->lock();
    REQUIRE(held);
    CHECK_FALSE(*held);
    second->release();
    CHECK(exists(name));  // the third's, left alone
    // Opened again, it finds the third holding it.
    auto retried = push_store::lock_file::open(folder.get(), "disk.sig.lock", name);
    REQUIRE(retried);
    auto locked = retried->lock();
    REQUIRE_FALSE(locked);
    CHECK(locked.err().message.find("(locked)") != std::string::npos);
}
