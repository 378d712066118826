// update_marker.cpp - the extended attribute that marks a file as half updated.
//
// Its value is "2 journal DEV INO NONCE PATH" for a journaled patch, "1 rewrite DEV INO PATH" for a rewrite and
// "1 unjournaled DEV INO" without a journal ("1 journal DEV INO PATH", without the nonce, is still read: earlier
// versions wrote it). The device and inode let a copy of the file that kept its attributes (cp -a, rsync -X,
// tar --xattrs) tell that the note is not about it; the name rules and the owner check keep someone who can write the
// file from pointing recovery at an unrelated file; the nonce ties the note to one journal, so a journal of an earlier
// update, put back under the name, is not taken for the current one.
#include "update_marker.hpp"

#include "fs/trusted_file.hpp"

#include <sys/xattr.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

// The fields of a note, before any check of the file it names.
struct note_fields {
    update_marker m;
    std::uint64_t dev = 0, ino = 0;
};

std::optional<update_kind> kind_of(const std::string& word) {
    if (word == "journal") return update_kind::journal;
    if (word == "rewrite") return update_kind::rewrite;
    if (word == "unjournaled") return update_kind::unjournaled;
    return {};
}

std::optional<note_fields> split_note(const char* value, std::size_t len) {
    const std::string text(value, len);
    char kind[16] = {};
    unsigned long long dev = 0, ino = 0, nonce = 0;
    int consumed = 0;
    note_fields f;
    if (text.starts_with("2 journal ")) {
        // %llx alone would take a sign or a 0x prefix: the nonce is exactly 16 hex digits.
        if (std::sscanf(text.c_str(), "2 journal %llu %llu %n", &dev, &ino, &consumed) != 2 || consumed <= 0 ||
            text.size() < static_cast<std::size_t>(consumed) + 17 ||
            text[static_cast<std::size_t>(consumed) + 16] != ' ')
            return {};
        const std::string hex = text.substr(static_cast<std::size_t>(consumed), 16);
        if (hex.find_first_not_of("0123456789abcdef") != std::string::npos) return {};
        nonce = std::strtoull(hex.c_str(), nullptr, 16);
        f.m.kind = update_kind::journal;
        f.m.nonce = nonce;
        consumed += 17;
    } else {
        if (std::sscanf(text.c_str(), "1 %15s %llu %llu %n", kind, &dev, &ino, &consumed) != 3 || consumed <= 0)
            return {};
        const auto k = kind_of(kind);
        if (!k) return {};
        f.m.kind = *k;
    }
    f.dev = dev, f.ino = ino;
    f.m.path = text.substr(static_cast<std::size_t>(consumed));
    return f;
}

bool about(const note_fields& f, const struct stat& st) {
    return f.dev == static_cast<std::uint64_t>(st.st_dev) && f.ino == static_cast<std::uint64_t>(st.st_ino);
}

std::optional<update_marker> parse(const char* value, std::size_t len, const struct stat& st) {
    auto f = split_note(value, len);
    if (!f || !about(*f, st)) return {};
    update_marker& m = f->m;
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

int set_update_marker(int fd, std::uint64_t dev, std::uint64_t ino, update_kind kind, const std::string& path,
                      bool durable, std::uint64_t nonce) {
    char head[96];
    if (kind == update_kind::journal)
        std::snprintf(head, sizeof head, "2 journal %llu %llu %016llx ", static_cast<unsigned long long>(dev),
                      static_cast<unsigned long long>(ino), static_cast<unsigned long long>(nonce));
    else
        std::snprintf(head, sizeof head, "1 %s %llu %llu ", kind_word(kind), static_cast<unsigned long long>(dev),
                      static_cast<unsigned long long>(ino));
    const std::string value =
        kind == update_kind::unjournaled ? std::string(head, std::strlen(head) - 1) : head + absolute(path);
    if (::fsetxattr(fd, attribute, value.data(), value.size(), 0) != 0) return errno;
    if (durable && ::fsync(fd) != 0) return errno;
    return 0;
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

journal_claim claim_of_journal(int fd, const struct stat& st, std::uint64_t nonce) {
    char value[PATH_MAX + 96];
    const ssize_t n = ::fgetxattr(fd, attribute, value, sizeof value);
    if (n < 0) return errno == ENODATA ? journal_claim::stale : journal_claim::unknown;
    const auto f = split_note(value, static_cast<std::size_t>(n));
    if (!f || !about(*f, st) || f->m.kind != update_kind::journal) return journal_claim::stale;
    // A note without nonce was written by an earlier version, for a patch it may
    // have left interrupted: its journal is taken by name, as that version did.
    return !f->m.nonce || *f->m.nonce == nonce ? journal_claim::current : journal_claim::stale;
}

}  // namespace rdelta::io_detail
