// path_walk.cpp - walking a path one component at a time (see path_walk.hpp).
#include "path_walk.hpp"

#include "posix_util.hpp"
#include "trusted_file.hpp"

#include <xxhash.h>

#include <fcntl.h>
#include <unistd.h>
#include <climits>
#include <cstdio>
#include <deque>
#include <utility>
#include <vector>

namespace rdelta::io_detail {

namespace {

constexpr int max_symlinks = 40;  // the kernel's own limit

class fd_owner {
public:
    explicit fd_owner(int fd = -1) : fd_(fd) {}
    ~fd_owner() { reset(); }
    fd_owner(const fd_owner&) = delete;
    fd_owner& operator=(const fd_owner&) = delete;
    int get() const { return fd_; }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }
    int release() { return std::exchange(fd_, -1); }

private:
    int fd_;
};

void push_front_components(std::deque<std::string>& parts, const std::string& path) {
    std::vector<std::string> found;
    std::size_t at = 0;
    while (at <= path.size()) {
        const auto slash = path.find('/', at);
        const auto end = slash == std::string::npos ? path.size() : slash;
        if (end > at) found.push_back(path.substr(at, end - at));
        if (slash == std::string::npos) break;
        at = slash + 1;
    }
    for (auto it = found.rbegin(); it != found.rend(); ++it) parts.push_front(*it);
}

std::string link_text(int link_fd) {
    char buf[PATH_MAX];
    const ssize_t n = ::readlinkat(link_fd, "", buf, sizeof buf);
    return n <= 0 || static_cast<std::size_t>(n) >= sizeof buf ? std::string()
                                                               : std::string(buf, static_cast<std::size_t>(n));
}

std::string fd_path(int fd, const std::string& fallback) {
    char buf[PATH_MAX];
    const std::string proc = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = ::readlink(proc.c_str(), buf, sizeof buf);
    if (n <= 0 || static_cast<std::size_t>(n) >= sizeof buf || buf[0] != '/') return fallback;
    return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace

walked_file::walked_file(walked_file&& o) noexcept
    : fd(std::exchange(o.fd, -1)),
      folder(std::exchange(o.folder, -1)),
      base(std::move(o.base)),
      folder_name(std::move(o.folder_name)),
      st(o.st) {}

walked_file& walked_file::operator=(walked_file&& o) noexcept {
    if (this != &o) {
        if (fd >= 0) ::close(fd);
        if (folder >= 0) ::close(folder);
        fd = std::exchange(o.fd, -1), folder = std::exchange(o.folder, -1);
        base = std::move(o.base), folder_name = std::move(o.folder_name), st = o.st;
    }
    return *this;
}

walked_file::~walked_file() {
    if (fd >= 0) ::close(fd);
    if (folder >= 0) ::close(folder);
}

std::string beside_name(const std::string& base, const std::string& suffix) {
    std::string name = "." + base + suffix;
    if (name.size() > NAME_MAX) {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx",
                      static_cast<unsigned long long>(XXH3_64bits(base.data(), base.size())));
        name = suffix + "-" + hex;
    }
    return name;
}

std::string joined(const std::string& folder, const std::string& name) {
    return folder == "/" ? "/" + name : folder + "/" + name;
}

std::pair<std::string, std::string> split_path(const std::string& path) {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    const auto slash = p.rfind('/');
    if (slash == std::string::npos) return {".", p};
    return {slash == 0 ? "/" : p.substr(0, slash), p.substr(slash + 1)};
}

int open_beside(int folder, const std::string& name, int flags, mode_t mode) {
    return ::openat(folder, name.c_str(), flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK, mode);
}

result<walked_file> open_walked(const std::string& path, int flags, const char* what) {
    if (path.empty()) return io_fail(path, what, ENOENT);
    std::deque<std::string> parts;
    push_front_components(parts, path);
    fd_owner dir(::open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0) return io_fail(path, what, errno);
    std::vector<uid_t> link_owners;
    int links = 0;
    std::string last;
    while (!parts.empty()) {
        std::string name = std::move(parts.front());
        parts.pop_front();
        if (name == ".") continue;
        fd_owner next(::openat(dir.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
        if (next.get() < 0) return io_fail(path, what, errno);
        struct stat st {};
        if (::fstat(next.get(), &st) != 0) return io_fail(path, what, errno);
        if (S_ISLNK(st.st_mode)) {
            if (++links > max_symlinks) return io_fail(path, what, ELOOP);
            const std::string target = link_text(next.get());
            if (target.empty()) return io_fail(path, what, EINVAL);
            link_owners.push_back(st.st_uid);
            if (target[0] == '/') dir.reset(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
            if (dir.get() < 0) return io_fail(path, what, errno);
            push_front_components(parts, target);
            if (parts.empty()) parts.push_back(".");  // a link to "/"
            continue;
        }
        if (parts.empty()) {  // the file itself
            last = std::move(name);
            break;
        }
        if (!S_ISDIR(st.st_mode)) return io_fail(path, what, ENOTDIR);
        dir.reset(next.release());
    }
    if (last.empty() || last == "..") return io_fail(path, what, EISDIR);
    walked_file f;
    f.fd = ::openat(dir.get(), last.c_str(), flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
    if (f.fd < 0 && errno == ELOOP)
        return fail(errc::io_error, path + ": was replaced while it was opened; nothing was changed");
    if (f.fd < 0) return io_fail(path, what, errno);
    if (::fstat(f.fd, &f.st) != 0) return io_fail(path, what, errno);
    for (const uid_t owner : link_owners)
        if (!trusted_owner(owner, f.st))
            return fail(errc::io_error, path + ": a symlink on the way to it is owned by uid " + std::to_string(owner) +
                                            ", neither the file's owner (uid " + std::to_string(f.st.st_uid) +
                                            "), root nor the caller: not followed");
    f.folder = ::openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (f.folder < 0) return io_fail(path, "cannot open its folder", errno);
    struct stat again {};
    if (::fstatat(f.folder, last.c_str(), &again, AT_SYMLINK_NOFOLLOW) != 0 || again.st_dev != f.st.st_dev ||
        again.st_ino != f.st.st_ino)
        return fail(errc::io_error, path + ": was replaced while it was opened; nothing was changed");
    f.base = std::move(last);
    f.folder_name = fd_path(f.folder, split_path(path).first);
    return f;
}

}  // namespace rdelta::io_detail
