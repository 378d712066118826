// sticky_folder.cpp - the ownership rules of shared sticky folders.
#include "sticky_folder.hpp"

#include <unistd.h>

namespace rdelta::io_detail {

namespace {

// Another user's name, in a folder where that user may create names but not
// remove the caller's: the folder owner is trusted, as the kernel trusts them.
bool planted(uid_t owner, const struct stat& dir) {
    return shared_sticky(dir) && owner != ::geteuid() && owner != dir.st_uid;
}

std::string owned_by(const char* what, uid_t owner) {
    return std::string(what) + " owned by uid " + std::to_string(owner) +
           ", neither the caller nor the folder's owner, in a sticky folder others can write";
}

}  // namespace

bool shared_sticky(const struct stat& dir) {
    return (dir.st_mode & S_ISVTX) != 0 && (dir.st_mode & (S_IWOTH | S_IWGRP)) != 0;
}

std::string unfollowable_because(const struct stat& link, const struct stat& dir) {
    return planted(link.st_uid, dir) ? owned_by("a symbolic link", link.st_uid) : std::string();
}

std::string unwritable_because(const struct stat& file, const struct stat& dir) {
    if (!S_ISREG(file.st_mode) && !S_ISFIFO(file.st_mode)) return "";
    return planted(file.st_uid, dir) ? owned_by(S_ISREG(file.st_mode) ? "a regular file" : "a FIFO", file.st_uid)
                                     : std::string();
}

}  // namespace rdelta::io_detail
