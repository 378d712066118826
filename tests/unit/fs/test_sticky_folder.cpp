// test_sticky_folder.cpp - the kernel's shared-sticky-folder rules as rdelta applies
// them: which folders count, whose symlinks are followed, whose files written.
#include "fs/sticky_folder.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

using rdelta::io_detail::shared_sticky;
using rdelta::io_detail::unfollowable_because;
using rdelta::io_detail::unwritable_because;

namespace {

struct stat status(mode_t mode, uid_t owner) {
    struct stat st {};
    st.st_mode = mode;
    st.st_uid = owner;
    return st;
}

// A uid that is neither the caller nor `but`.
uid_t someone_else(uid_t but) {
    uid_t uid = 4242;
    while (uid == ::geteuid() || uid == but) ++uid;
    return uid;
}

}  // namespace

TEST_CASE("shared_sticky: sticky and writable by others, world or group") {
    CHECK(shared_sticky(status(S_IFDIR | 01777, 0)));
    CHECK(shared_sticky(status(S_IFDIR | 01770, 0)));  // protected_regular=2 counts it
    CHECK_FALSE(shared_sticky(status(S_IFDIR | 0777, 0)));
    CHECK_FALSE(shared_sticky(status(S_IFDIR | 01755, 0)));
}

TEST_CASE("unfollowable_because: only the caller's and the folder owner's symlinks") {
    const uid_t owner = someone_else(::geteuid()), other = someone_else(owner);
    const auto tmp = status(S_IFDIR | 01777, owner);
    CHECK(unfollowable_because(status(S_IFLNK | 0777, ::geteuid()), tmp).empty());
    CHECK(unfollowable_because(status(S_IFLNK | 0777, owner), tmp).empty());
    const auto why = unfollowable_because(status(S_IFLNK | 0777, other), tmp);
    CHECK(why.find("symbolic link") != std::string::npos);
    CHECK(why.find(std::to_string(other)) != std::string::npos);
    CHECK(unfollowable_because(status(S_IFLNK | 0777, other), status(S_IFDIR | 0777, owner)).empty());
}

TEST_CASE("unwritable_because: another user's file or FIFO, not a device") {
    const uid_t owner = someone_else(::geteuid()), other = someone_else(owner);
    const auto tmp = status(S_IFDIR | 01777, owner);
    CHECK(unwritable_because(status(S_IFREG | 0666, other), tmp).find("regular file") != std::string::npos);
    CHECK(unwritable_because(status(S_IFIFO | 0666, other), tmp).find("FIFO") != std::string::npos);
    CHECK(unwritable_because(status(S_IFCHR | 0666, other), tmp).empty());
    CHECK(unwritable_because(status(S_IFREG | 0666, owner), tmp).empty());
    CHECK(unwritable_because(status(S_IFREG | 0666, ::geteuid()), tmp).empty());
    CHECK(unwritable_because(status(S_IFREG | 0666, other), status(S_IFDIR | 0755, owner)).empty());
}
