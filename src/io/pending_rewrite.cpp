// pending_rewrite.cpp - finding and finishing an inode rewrite that was cut short.
//
// The rewrite (output_file::rewrite_inode) names its complete staging file
// `.NAME.rdelta-rewrite` beside the file, or `.rdelta-rewrite-DEV-INO` in $TMPDIR,
// before it starts overwriting the file, and removes it when done. A staging file
// found under that name is therefore complete, and copying it into the file is
// what the interrupted run was doing: recovery rolls forward.
#include "pending_rewrite.hpp"

#include "posix_util.hpp"
#include "publish.hpp"
#include "update_marker.hpp"

#include <rdelta/file.hpp>

#include <xxhash.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace rdelta {

namespace {

using io_detail::io_fail;

class fd_guard {
public:
    explicit fd_guard(int fd) : fd_(fd) {}
    ~fd_guard() {
        if (fd_ >= 0) ::close(fd_);
    }
    fd_guard(const fd_guard&) = delete;
    fd_guard& operator=(const fd_guard&) = delete;
    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_;
};

struct split_path {
    std::string folder, base;
};

split_path split(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return {".", path};
    return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace

namespace io_detail {

std::string pending_rewrite_path(const std::string& staging_folder, const std::string& folder, const std::string& base,
                                 const struct stat& st) {
    const std::string prefix = staging_folder == "/" ? "/" : staging_folder + "/";
    if (staging_folder != folder) {
        char id[64];
        std::snprintf(id, sizeof id, ".rdelta-rewrite-%llx-%llu", static_cast<unsigned long long>(st.st_dev),
                      static_cast<unsigned long long>(st.st_ino));
        return prefix + id;
    }
    const std::string name = "." + base + ".rdelta-rewrite";
    if (name.size() <= NAME_MAX) return prefix + name;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(base.data(), base.size())));
    return prefix + ".rdelta-rewrite-" + hex;
}

bool take_pending_name(std::string& temp, const std::string& pending) {
    if (::rename(temp.c_str(), pending.c_str()) == 0) {
        temp = pending;
        return true;
    }
    // Recovery will not find it, but the error names it; a name remove_stale_temps()
    // never takes, since it may soon hold the only complete copy of the content.
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string kept = pending + "-" + random_letters();
        if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, kept.c_str(), RENAME_NOREPLACE) == 0) {
            temp = kept;
            break;
        }
        if (errno != EEXIST) break;
    }
    return false;
}

bool trusted_owner(uid_t owner, const struct stat& file) {
    return owner == ::geteuid() || owner == file.st_uid || owner == 0;
}

std::string find_pending_rewrite(const std::string& target, const struct stat& st) {
    // The name the file carries wins: it was rewritten under another name (a hard
    // link elsewhere, or renamed since).
    if (const auto marker = read_update_marker(target, st); marker && marker->kind == update_kind::rewrite)
        return marker->path;
    const auto [folder, base] = split(target);
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string candidates[] = {
        io_detail::pending_rewrite_path(folder, folder, base, st),
        io_detail::pending_rewrite_path(tmpdir && *tmpdir ? tmpdir : "/tmp", folder, base, st),
    };
    // In a shared folder such as /tmp anyone may create a file under that name:
    // only one of the caller's, the file's owner's or root's counts.
    for (const auto& c : candidates) {
        struct stat s {};
        if (::lstat(c.c_str(), &s) == 0 && trusted_owner(s.st_uid, st)) return c;
    }
    return "";
}

}  // namespace io_detail

namespace {

// Only a file rdelta could have made for this rewrite is copied in: a regular file
// with one link, owned by the caller, the file's owner or root.
result<int> open_staging(const std::string& staging, const struct stat& target, const std::string& name) {
    const int fd = ::open(staging.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return io_fail(staging, "cannot open the staging file of an interrupted rewrite", errno);
    struct stat s {};
    if (::fstat(fd, &s) != 0 || !S_ISREG(s.st_mode) || s.st_nlink != 1 ||
        !io_detail::trusted_owner(s.st_uid, target)) {
        ::close(fd);
        return fail(errc::io_error, staging + ": not a staging file rdelta made for " + name +
                                        " (not a regular file with one link); "
                                        "both left as they are");
    }
    return fd;
}

}  // namespace

result<std::string> finish_interrupted_rewrite(const std::string& path) {
    std::string target = path;
    if (char* real = ::realpath(path.c_str(), nullptr)) {
        target = real;
        std::free(real);
    }
    struct stat st {};
    if (::stat(target.c_str(), &st) != 0) return io_fail(path, "cannot stat", errno);
    if (!S_ISREG(st.st_mode)) return std::string();
    const std::string staging = io_detail::find_pending_rewrite(target, st);
    if (staging.empty()) return std::string();
    auto from = open_staging(staging, st, path);
    if (!from) return std::move(from).err();
    fd_guard in(*from);
    fd_guard out(::open(target.c_str(), O_WRONLY | O_CLOEXEC));
    if (out.get() < 0) return io_fail(path, "cannot open for writing", errno);
    if (::flock(out.get(), LOCK_EX | LOCK_NB) != 0)
        return errno == EWOULDBLOCK ? fail(errc::io_error, path + ": another rdelta is writing it (locked)")
                                    : io_fail(path, "cannot lock", errno);
    struct stat s {};
    if (::fstat(in.get(), &s) != 0) return io_fail(staging, "cannot stat", errno);
    const auto size = static_cast<std::uint64_t>(s.st_size);
    if (auto room = io_detail::reserve_for_copy(in.get(), out.get(), size, path); !room) return std::move(room).err();
    io_detail::signal_deferral no_stop_halfway;
    if (auto copied = io_detail::copy_into_inode(in.get(), out.get(), size, true, path); !copied)
        return std::move(copied).err();
    io_detail::clear_update_marker(out.get());  // whole and synced
    if (::close(out.release()) != 0) return io_fail(path, "write failed", errno);
    if (::unlink(staging.c_str()) != 0) return io_fail(staging, "cannot delete the staging file (the rewrite is done)", errno);
    io_detail::sync_folder(staging);
    return staging;
}

}  // namespace rdelta
