// trusted_file.cpp - the ownership rule for journals and staging files.
#include "trusted_file.hpp"

#include <unistd.h>

namespace rdelta::io_detail {

bool trusted_owner(uid_t owner, const struct stat& file) {
    return owner == ::geteuid() || owner == file.st_uid || owner == 0;
}

std::string untrusted_because(const struct stat& found, const struct stat& image) {
    if (!S_ISREG(found.st_mode)) return "not a regular file";
    if (found.st_nlink != 1) return "it has other hard links";
    if (!trusted_owner(found.st_uid, image))
        return "owned by uid " + std::to_string(found.st_uid) + ", neither the file's owner (uid " +
               std::to_string(image.st_uid) + "), root nor the caller";
    if ((found.st_mode & (S_IWGRP | S_IWOTH)) != 0) return "writable by others than its owner";
    return "";
}

}  // namespace rdelta::io_detail
