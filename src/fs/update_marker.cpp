// update_marker.cpp - the extended attribute that marks a file as half updated.
//
// Its value is "1 KIND DEV INO PATH" ("1 unjournaled DEV INO" without a journal). The device and inode let a copy of
// the file that kept its attributes (cp -a, rsync -X, tar --xattrs) tell that the note is not about it; the name rules
// and the owner check keep someone who can write the file from pointing recovery at an unrelated file.
#include "update_marker.hpp"

#include "trusted_file.hpp"

#include <sys/xattr.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rdelta::io_detail {

namespace {

constexpr const char* attribute = "user.rdelta.unfinished";
constexpr const char* staging_tag = "user.rdelta.staging-for";

std::string identity(std::uint64_t dev, std::uint64_t ino) {
    return "1 " + std::to_string(dev) + " " + std::to_string(ino);
}

// A journal carries its image's identity in its header (recovery checks it); a
// staging file carries it in this tag.
bool tagged_for(const std::string& staging, const struct stat& st) {
    const std::string want = identity(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
    char value[64];
    const ssize_t n = ::lgetxattr(staging.c_str(), staging_tag, value, sizeof value);
    return n > 0 && std::string(value, static_cast<std::size_t>(n)) == want;
}

const char* kind_word(update_kind kind) {
    switch (kind) {
        case update_kind::journal: return "journal";
        case update_kind::rewrite: return "rewrite";
        case update_kind::unjournaled: break;
    }
    return "unjournaled";
}

std::string absolute(const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    char cwd[PATH_MAX];
    if (!::getcwd(cwd, sizeof cwd)) return path;
    return std::string(cwd) + "/" + path;
}

// A journal is `.NAME.rdelta-journal` or `.rdelta-journal-HASH`; a staging file
// `.NAME.rdelta-rewrite`, `.rdelta-rewrite-...`, or either with `-XXXXXX` after it.
bool named_as(update_kind kind, const std::string& path) {
    const auto slash = path.rfind('/');
    const std::string base = path.substr(slash + 1);
    const std::string word = std::string(".rdelta-") + kind_word(kind);
    return base.size() > 1 && base[0] == '.' && base.find(word) != std::string::npos;
}

std::optional<update_marker> parse(const char* value, std::size_t len, const struct stat& st) {
    const std::string text(value, len);
    char kind[16] = {};
    unsigned long long dev = 0, ino = 0;
    int consumed = 0;
    if (std::sscanf(text.c_str(), "1 %15s %llu %llu %n", kind, &dev, &ino, &consumed) != 3 || consumed <= 0) return {};
    update_marker m;
    const std::string k = kind;
    if (k == "journal")
        m.kind = update_kind::journal;
    else if (k == "rewrite")
        m.kind = update_kind::rewrite;
    else if (k == "unjournaled")
        m.kind = update_kind::unjournaled;
    else
        return {};
    if (dev != static_cast<unsigned long long>(st.st_dev) || ino != static_cast<unsigned long long>(st.st_ino))
        return {};
    m.path = text.substr(static_cast<std::size_t>(consumed));
    if (m.kind == update_kind::unjournaled) return m.path.empty() ? std::optional(m) : std::nullopt;
    if (m.path.empty() || m.path[0] != '/' || !named_as(m.kind, m.path)) return {};
    struct stat s {};
    if (::lstat(m.path.c_str(), &s) != 0 || !S_ISREG(s.st_mode) || !trusted_owner(s.st_uid, st)) return {};
    if (m.kind == update_kind::rewrite && !tagged_for(m.path, st)) return {};
    return m;
}

}  // namespace

staging_tag_state staging_tag_of(int staging_fd, const struct stat& st) {
    const std::string want = identity(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
    char value[64];
    const ssize_t n = ::fgetxattr(staging_fd, staging_tag, value, sizeof value);
    if (n < 0) return errno == ENOTSUP ? staging_tag_state::unsupported : staging_tag_state::other;
    return std::string(value, static_cast<std::size_t>(n)) == want ? staging_tag_state::this_file
                                                                   : staging_tag_state::other;
}

namespace {

template <class Get>
std::optional<update_marker> read_with(Get get, const struct stat& st) {
    if (!S_ISREG(st.st_mode)) return {};
    char value[PATH_MAX + 96];
    const ssize_t n = get(value, sizeof value);
    if (n <= 0) return {};  // none (ENODATA), no attributes here, or too long to be ours
    return parse(value, static_cast<std::size_t>(n), st);
}

}  // namespace

bool set_update_marker(int fd, std::uint64_t dev, std::uint64_t ino, update_kind kind, const std::string& path,
                       bool durable) {
    char head[96];
    std::snprintf(head, sizeof head, "1 %s %llu %llu ", kind_word(kind), static_cast<unsigned long long>(dev),
                  static_cast<unsigned long long>(ino));
    const std::string value =
        kind == update_kind::unjournaled ? std::string(head, std::strlen(head) - 1) : head + absolute(path);
    if (::fsetxattr(fd, attribute, value.data(), value.size(), 0) != 0) return false;
    if (durable) (void)::fsync(fd);
    return true;
}

bool tag_staging_file(int staging_fd, std::uint64_t dev, std::uint64_t ino) {
    const std::string value = identity(dev, ino);
    return ::fsetxattr(staging_fd, staging_tag, value.data(), value.size(), 0) == 0;
}

void clear_update_marker(int fd) {
    (void)::fremovexattr(fd, attribute);
}

std::optional<update_marker> read_update_marker(int fd, const struct stat& st) {
    return read_with([fd](char* v, std::size_t n) { return ::fgetxattr(fd, attribute, v, n); }, st);
}

std::optional<update_marker> read_update_marker(const std::string& path, const struct stat& st) {
    return read_with([&path](char* v, std::size_t n) { return ::getxattr(path.c_str(), attribute, v, n); }, st);
}

}  // namespace rdelta::io_detail
