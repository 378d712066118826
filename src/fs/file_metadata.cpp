// file_metadata.cpp - owner, mode, ACLs and xattrs of a replaced file.
#include "file_metadata.hpp"

#include "posix_util.hpp"

#include <sys/xattr.h>
#include <unistd.h>
#include <cerrno>
#include <vector>

namespace rdelta::io_detail {

result<void> carry_owner_and_mode(int fd, const struct stat& old, const std::string& name) {
    // chown first: it clears setuid/setgid, and fchmod then sets the final bits.
    if (::fchown(fd, old.st_uid, old.st_gid) != 0) return io_fail(name, "cannot keep the file's owner", errno);
    if (::fchmod(fd, old.st_mode & 01777) != 0) return io_fail(name, "cannot keep the file's permissions", errno);
    return {};
}

namespace {

// The value of one attribute; nullopt-like empty flag when it vanished or failed.
bool read_xattr(const std::string& path, const char* key, std::vector<char>& value) {
    for (int tries = 0; tries < 4; ++tries) {
        const ssize_t size = ::lgetxattr(path.c_str(), key, nullptr, 0);
        if (size < 0) return false;
        value.resize(static_cast<std::size_t>(size));
        const ssize_t got = ::lgetxattr(path.c_str(), key, value.data(), value.size());
        if (got >= 0) {
            value.resize(static_cast<std::size_t>(got));
            return true;
        }
        if (errno != ERANGE) return false;  // grew meanwhile: ask again
    }
    return false;
}

}  // namespace

std::string carry_xattrs(const std::string& old_path, int fd) {
    ssize_t size = ::llistxattr(old_path.c_str(), nullptr, 0);
    if (size <= 0) return {};
    std::vector<char> names(static_cast<std::size_t>(size));
    size = ::llistxattr(old_path.c_str(), names.data(), names.size());
    if (size <= 0) return {};
    std::string skipped;
    std::vector<char> value;
    for (std::size_t at = 0; at < static_cast<std::size_t>(size);) {
        const char* key = names.data() + at;
        const std::string key_text(key);
        at += key_text.size() + 1;
        if (key_text.empty()) continue;
        if (!read_xattr(old_path, key, value) || ::fsetxattr(fd, key, value.data(), value.size(), 0) != 0)
            skipped += (skipped.empty() ? "" : ", ") + key_text;
    }
    return skipped;
}

}  // namespace rdelta::io_detail
