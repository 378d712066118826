// output_target.cpp - resolving an output name before anything is written.
#include "output_target.hpp"

#include "fs/posix_util.hpp"
#include "fs/sticky_folder.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

namespace rdelta::io_detail {

namespace {

// Names that stand for an already open descriptor; opening them reopens what the
// descriptor refers to (a pipe, a terminal, the file a shell redirected to), which
// must be written directly, never replaced by a rename.
bool names_descriptor(const std::string& p) {
    if (p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin") return true;
    if (p.rfind("/dev/fd/", 0) == 0) return true;
    return p.rfind("/proc/", 0) == 0 && p.find("/fd/") != std::string::npos;
}

std::string folder_of(const std::string& p) {
    const auto slash = p.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : p.substr(0, slash);
}

std::string base_of(const std::string& p) {
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The target of symlink `p`, relative targets taken from the link's folder.
result<std::string> follow(const std::string& name, const std::string& p) {
    std::vector<char> buf(PATH_MAX + 1);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) return io_fail(name, "cannot read the symbolic link", errno);
    std::string target(buf.data(), static_cast<std::size_t>(n));
    if (target.empty() || target[0] == '/') return target;
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? target : p.substr(0, slash + 1) + target;
}

bool in_my_groups(gid_t gid) {
    if (gid == getegid()) return true;
    const int n = getgroups(0, nullptr);
    if (n <= 0) return false;
    std::vector<gid_t> groups(static_cast<std::size_t>(n));
    const int got = getgroups(n, groups.data());
    for (int i = 0; i < got; ++i)
        if (groups[static_cast<std::size_t>(i)] == gid) return true;
    return false;
}

// Whether a renamed replacement would keep what the old file has: its only link
// (unless `links_count` is false), its owner and group (only root gives files
// away), and a folder to rename in.
bool rename_keeps_file(const output_target& t, bool links_count) {
    if (links_count && t.st.st_nlink > 1) return false;
    if (::faccessat(AT_FDCWD, t.folder.c_str(), W_OK | X_OK, AT_EACCESS) != 0) return false;
    if (geteuid() == 0) return true;
    return t.st.st_uid == geteuid() && in_my_groups(t.st.st_gid);
}

// How an existing regular file in a folder with status `dir` is replaced. In a
// shared sticky folder its other links may be anyone's (made where
// fs.protected_hardlinks is off), so it is renamed over rather than rewritten
// through its inode; and a file there that is not the caller's (the folder
// owner's) is not handed what root writes: root, who may rename over any name,
// replaces it by a file of its own.
output_kind replace_kind(output_target& t, const struct stat& dir) {
    if (!shared_sticky(dir)) return rename_keeps_file(t, true) ? output_kind::replace : output_kind::rewrite_inode;
    t.carry_metadata = t.st.st_uid == geteuid();
    if (geteuid() == 0) return output_kind::replace;
    return t.carry_metadata && rename_keeps_file(t, false) ? output_kind::replace : output_kind::rewrite_inode;
}

error refused(const std::string& name, const std::string& path, const std::string& why) {
    return fail(errc::io_error, name + ": cannot open for writing: " + std::strerror(EACCES) + " (" +
                                    (path == name ? "" : path + ": ") + why + ")");
}

// The status of the folder holding `path`, whose rules say what may be followed
// or written there.
result<struct stat> folder_status(const std::string& name, const std::string& path) {
    struct stat dir {};
    if (::stat(folder_of(path).c_str(), &dir) != 0) return io_fail(name, "cannot open for writing", errno);
    return dir;
}

// Follow the symlinks from `t.path` to the file they end at, leaving its status
// in `t.st`; a missing file (a dangling link) makes `t` a new file, and a name
// standing for a descriptor ends the walk (the kernel resolves it).
result<void> walk_links(const std::string& name, output_target& t) {
    for (int hops = 0;; ++hops) {
        if (hops > 40) return io_fail(name, "cannot open for writing", ELOOP);
        struct stat lst {};
        if (names_descriptor(t.path)) {
            if (::stat(t.path.c_str(), &t.st) != 0) return io_fail(name, "cannot open for writing", errno);
            t.by_descriptor = true;
            return {};
        }
        if (::lstat(t.path.c_str(), &lst) != 0) {
            if (errno != ENOENT) return io_fail(name, "cannot open for writing", errno);
            t.folder = folder_of(t.path), t.base = base_of(t.path);
            struct stat folder {};
            if (::stat(t.folder.c_str(), &folder) != 0) return io_fail(name, "cannot open for writing", errno);
            if (!S_ISDIR(folder.st_mode)) return io_fail(name, "cannot open for writing", ENOTDIR);
            t.kind = output_kind::new_file;
            return {};
        }
        if (!S_ISLNK(lst.st_mode)) {
            t.st = lst;
            return {};
        }
        auto dir = folder_status(name, t.path);
        if (!dir) return std::move(dir).err();
        if (const auto why = unfollowable_because(lst, *dir); !why.empty()) return refused(name, t.path, why);
        auto next = follow(name, t.path);
        if (!next) return std::move(next).err();
        t.path = std::move(*next);
    }
}

}  // namespace

result<output_target> resolve_output(const std::string& name, bool force) {
    if (name.empty()) return fail(errc::io_error, "\"\": cannot open for writing: No such file or directory");
    output_target t;
    t.path = name;
    if (auto walked = walk_links(name, t); !walked) return std::move(walked).err();
    if (t.kind == output_kind::new_file) return t;
    if (t.by_descriptor) {
        if (!force) return fail(errc::io_error, name + ": file exists", remedy::allow_replace, name);
        t.kind = output_kind::stream;
        return t;
    }
    // A folder is no output, forced or not: say so rather than "use --force".
    if (S_ISDIR(t.st.st_mode)) return io_fail(name, "cannot open for writing", EISDIR);
    if (!force) return fail(errc::io_error, name + ": file exists", remedy::allow_replace, name);
    t.folder = folder_of(t.path), t.base = base_of(t.path);
    auto dir = folder_status(name, t.path);
    if (!dir) return std::move(dir).err();
    if (const auto why = unwritable_because(t.st, *dir); !why.empty()) return refused(name, t.path, why);
    if (!S_ISREG(t.st.st_mode)) {
        t.kind = output_kind::stream;
        return t;
    }
    // The caller must be allowed to write the file itself, as when rdiff opens it
    // (a writable folder alone is not enough); immutable and append-only files refuse too.
    const int probe = ::open(t.path.c_str(), O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (probe < 0) return io_fail(name, "cannot open for writing", errno);
    ::close(probe);
    t.kind = replace_kind(t, *dir);
    return t;
}

}  // namespace rdelta::io_detail
