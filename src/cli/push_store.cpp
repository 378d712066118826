// push_store.cpp - push's kept signature, its lock and its successor, all opened
// through the store's folder (push_store.hpp).
#include "push_store.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/format.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace rdelta::cli {

namespace {

error store_fail(const std::string& name, const char* what, int err) {
    return fail(errc::io_error, name + ": " + what + ": " + std::strerror(err));
}

error refused(const std::string& name, const std::string& why, const char* way_out = "remove it, or give another") {
    return fail(errc::io_error, name + ": " + why + "; refused (" + way_out + " --signature-store)");
}

// Why the folder with status `st` cannot hold the store: someone else could swap
// or plant the names push reads and renames there.
std::string untrusted_folder(const struct stat& st) {
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
        return "the signature store's folder belongs to uid " + std::to_string(st.st_uid) +
               ", neither the caller nor root";
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
        return "the signature store's folder is writable by other users and not sticky";
    return "";
}

// Why the name with status `st` in the store's folder is not push's own file.
std::string not_ours(const struct stat& st) {
    if (S_ISLNK(st.st_mode)) return "a symbolic link, not followed";
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    if (st.st_uid != ::geteuid()) return "owned by uid " + std::to_string(st.st_uid) + ", not by the caller";
    return "";
}

// Whether `base` in `folder` is still the file open as `fd` (0: yes, ENOENT or
// ESTALE: it is gone or another file now, or the errno of the failure).
int still_named(int folder, const std::string& base, int fd) {
    struct stat mine {};
    struct stat named {};
    if (::fstat(fd, &mine) != 0) return errno;
    if (::fstatat(folder, base.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0) return errno;
    return named.st_dev == mine.st_dev && named.st_ino == mine.st_ino ? 0 : ESTALE;
}

std::uint32_t be32(const std::uint8_t* p) {
    return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

}  // namespace

std::optional<std::string> default_store(const std::string& image_real, const std::string& dest_text) {
    std::string base;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::string(home) + "/.cache";
    else
        return std::nullopt;
    base += "/rdelta/push";
    for (auto at = base.find('/', 1);; at = base.find('/', at + 1)) {  // mkdir -p, private
        if (::mkdir(base.substr(0, at).c_str(), 0700) != 0 && errno != EEXIST) return std::nullopt;
        if (at == std::string::npos) break;
    }
    // FNV-1a: a stable name across builds (std::hash promises no such thing).
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const std::string* s : {&image_real, &dest_text}) {
        for (const unsigned char c : *s) h = (h ^ c) * 0x100000001b3ull;
        h = (h ^ 0) * 0x100000001b3ull;
    }
    const auto slash = image_real.rfind('/');
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016" PRIx64, h);
    return base + "/" + image_real.substr(slash + 1) + "-" + hex + ".sig";
}

result<push_store> push_store::open(const std::string& path) {
    push_store s;
    s.path_ = path;
    const auto slash = path.rfind('/');
    s.base_ = slash == std::string::npos ? path : path.substr(slash + 1);
    s.folder_name_ = slash == std::string::npos ? "." : path.substr(0, slash + (slash == 0));
    if (s.base_.empty() || s.base_ == "." || s.base_ == "..")
        return fail(errc::io_error, path + ": the signature store must name a file");
    s.folder_.reset(::open(s.folder_name_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat st {};
    if (s.folder_.get() < 0 || ::fstat(s.folder_.get(), &st) != 0)
        return store_fail(s.folder_name_, "cannot open the signature store's folder", errno);
    if (const auto why = untrusted_folder(st); !why.empty()) return refused(s.folder_name_, why, "give another");
    if (auto locked = s.take_lock(); !locked) return std::move(locked).err();
    if (auto cleared = s.clear_next(); !cleared) return std::move(cleared).err();
    return s;
}

// Two pushes of one destination at once would rotate each other's signatures.
// Another user's lock file (planted in a shared folder) is refused, never waited on.
// Each retry follows a holder that let go between our open and our lock; a bound
// keeps a folder whose names keep changing from holding push here.
result<void> push_store::take_lock() {
    constexpr int attempts = 100;
    const std::string name = path_ + ".lock", base = base_ + ".lock";
    for (int i = 0; i < attempts; ++i) {
        auto opened = lock_file::open(folder_.get(), base, name);
        if (!opened) return std::move(opened).err();
        auto held = opened->lock();
        if (!held) return std::move(held).err();
        if (*held) {
            lock_ = std::move(*opened);
            return {};
        }
    }
    return fail(errc::io_error, name + ": removed and made again while it was being locked; try again");
}

push_store::lock_file& push_store::lock_file::operator=(lock_file&& other) noexcept {
    if (this != &other) {
        release();
        folder_ = std::move(other.folder_), fd_ = std::move(other.fd_);
        base_ = std::move(other.base_), name_ = std::move(other.name_);
        held_ = std::exchange(other.held_, false);
    }
    return *this;
}

result<push_store::lock_file> push_store::lock_file::open(int folder, const std::string& base,
                                                          const std::string& name) {
    lock_file l;
    l.base_ = base, l.name_ = name;
    struct stat st {};
    if (::fstatat(folder, base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
        if (const auto why = not_ours(st); !why.empty()) return refused(name, "the lock file is " + why);
    // Its own copy of the folder: the name is removed through it when the lock goes.
    l.folder_.reset(::fcntl(folder, F_DUPFD_CLOEXEC, 3));
    if (!l.folder_) return store_fail(name, "cannot open its folder", errno);
    l.fd_.reset(::openat(folder, base.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
    if (!l.fd_) return store_fail(name, "cannot open", errno);
    if (::fstat(l.fd_.get(), &st) != 0) return store_fail(name, "cannot open", errno);
    if (const auto why = not_ours(st); !why.empty()) return refused(name, "the lock file is " + why);
    return l;
}

result<bool> push_store::lock_file::lock() {
    if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            return fail(errc::io_error, name_ + ": another push of this image to this destination is running (locked)");
        return store_fail(name_, "cannot lock", errno);
    }
    const int named = still_named(folder_.get(), base_, fd_.get());
    if (named == ENOENT || named == ESTALE) return false;  // closing the file lets the lock go
    if (named != 0) return store_fail(name_, "cannot check", named);
    held_ = true;
    return true;
}

void push_store::lock_file::release() noexcept {
    // The name goes first, while the lock still keeps everyone else out of it.
    if (held_ && still_named(folder_.get(), base_, fd_.get()) == 0) ::unlinkat(folder_.get(), base_.c_str(), 0);
    held_ = false;
    fd_.reset();
    folder_.reset();
}

// A dead run's FILE.next goes (the lock is held); anyone else's stays, refused.
result<void> push_store::clear_next() const {
    const std::string base = base_ + ".next";
    struct stat st {};
    if (::fstatat(folder_.get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return {};
    if (const auto why = not_ours(st); !why.empty()) return refused(path_ + ".next", why);
    ::unlinkat(folder_.get(), base.c_str(), 0);
    return {};
}

result<posix_io::unique_fd> push_store::open_kept() const {
    posix_io::unique_fd fd(::openat(folder_.get(), base_.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0 && errno == ENOENT) return posix_io::unique_fd();
    if (fd.get() < 0 && errno == ELOOP) return refused(path_, "the kept signature is a symbolic link, not followed");
    if (fd.get() < 0) return store_fail(path_, "cannot open", errno);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return store_fail(path_, "cannot open", errno);
    if (const auto why = not_ours(st); !why.empty()) return refused(path_, "the kept signature is " + why);
    return fd;
}

std::string push_store::not_a_signature(int fd) {
    std::uint8_t head[12];
    const ssize_t got = ::pread(fd, head, sizeof head, 0);
    struct stat st {};
    if (got < 0 || ::fstat(fd, &st) != 0) return std::strerror(errno);
    if (detect_codec({head, static_cast<std::size_t>(got)}) != codec::none) return "";
    if (got < static_cast<ssize_t>(sizeof head)) return "shorter than a signature's header";
    const auto format = format_of_magic(be32(head));
    if (!format) return "no signature magic";
    const std::uint32_t block = be32(head + 4), strong = be32(head + 8);
    if (block == 0) return "a block length of 0";
    if (strong == 0 || strong > max_strong_len(format->strong))
        return "a strong sum length of " + std::to_string(strong);
    if ((static_cast<std::uint64_t>(st.st_size) - sizeof head) % (4 + strong) != 0)
        return "its length is not a whole number of block records";
    return "";
}

void push_store::drop() const {
    ::unlinkat(folder_.get(), base_.c_str(), 0);
}

// Unnamed (O_TMPFILE) where the filesystem allows, else FILE.next created here and
// now (never an existing name, never through a symlink).
result<int> push_store::next() {
    if (next_.get() >= 0) {
        if (::ftruncate(next_.get(), 0) != 0 || ::lseek(next_.get(), 0, SEEK_SET) != 0)
            return store_fail(path_ + ".next", "cannot empty", errno);
        return next_.get();
    }
    next_.reset(::openat(folder_.get(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (next_.get() < 0) {
        next_.reset(::openat(folder_.get(), (base_ + ".next").c_str(),
                             O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (next_.get() < 0) return store_fail(path_ + ".next", "cannot create", errno);
        next_named_ = true;
    }
    return next_.get();
}

result<void> push_store::commit_next() {
    const std::string name = path_ + ".next", base = base_ + ".next";
    if (::fsync(next_.get()) != 0) return store_fail(name, "cannot flush to disk", errno);
    if (!next_named_) {
        const std::string proc = "/proc/self/fd/" + std::to_string(next_.get());
        // Without /proc, root can still link the descriptor itself.
        if (::linkat(AT_FDCWD, proc.c_str(), folder_.get(), base.c_str(), AT_SYMLINK_FOLLOW) != 0 &&
            (errno != ENOENT || ::linkat(next_.get(), "", folder_.get(), base.c_str(), AT_EMPTY_PATH) != 0))
            return store_fail(name, "cannot name", errno);
        next_named_ = true;
    }
    if (::renameat(folder_.get(), base.c_str(), folder_.get(), base_.c_str()) != 0) {
        const int e = errno;
        ::unlinkat(folder_.get(), base.c_str(), 0);
        return store_fail(name, "cannot rename over the kept signature", e);
    }
    ::fsync(folder_.get());
    next_.reset();
    return {};
}

}  // namespace rdelta::cli
