// publish.cpp - renaming without replacing, rewriting an inode, durable names.
#include "publish.hpp"

#include "core/posix_io.hpp"
#include "posix_util.hpp"
#include "stale_temps.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace rdelta::io_detail {

namespace {

error appeared_meanwhile(const std::string& name) {
    return fail(errc::io_error, name + ": file exists: it appeared while the output was written and was left untouched",
                remedy::allow_replace, name);
}

std::string fd_path(int fd) {
    return "/proc/self/fd/" + std::to_string(fd);
}

// `.NAME.rdelta-XXXXXX` in `folder`, or `.rdelta-XXXXXX` when too long for a name.
std::string temp_template(const std::string& folder, const std::string& base) {
    constexpr std::size_t extra = sizeof(".") - 1 + sizeof(".rdelta-XXXXXX") - 1;
    const std::string prefix = folder == "/" ? "/" : folder + "/";
    return base.size() + extra <= NAME_MAX ? prefix + "." + base + ".rdelta-XXXXXX" : prefix + ".rdelta-XXXXXX";
}

}  // namespace

int open_unnamed_in(const std::string& folder) {
    if (::access("/proc/self/fd", X_OK) != 0) return -1;
    const int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) mark_temp_alive(fd);  // the names it is linked under are then alive too
    return fd;  // -1: EOPNOTSUPP, EISDIR (kernels or filesystems without it), or a real error met again later
}

result<void> link_unnamed(int fd, const std::string& path, const std::string& name) {
    if (::linkat(AT_FDCWD, fd_path(fd).c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) return {};
    if (errno == EEXIST) return appeared_meanwhile(name);
    return io_fail(name, "cannot link the finished output into place", errno);
}

std::string random_letters() {
    static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char random[6];
    if (::getrandom(random, sizeof random, 0) != static_cast<ssize_t>(sizeof random))
        for (auto& r : random) r = static_cast<unsigned char>(std::rand());
    std::string out(sizeof random, 'X');
    for (std::size_t i = 0; i < sizeof random; ++i) out[i] = letters[random[i] % 62];
    return out;
}

result<void> link_unnamed_beside(int fd, const std::string& folder, const std::string& base, const std::string& name,
                                 std::string& temp) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        temp = temp_template(folder, base);
        temp.replace(temp.size() - 6, 6, random_letters());
        if (::linkat(AT_FDCWD, fd_path(fd).c_str(), AT_FDCWD, temp.c_str(), AT_SYMLINK_FOLLOW) == 0) return {};
        if (errno != EEXIST) break;
    }
    const int err = errno;
    temp.clear();
    return io_fail(name, "cannot link the finished output beside it", err);
}

result<void> rename_no_replace(const std::string& temp, const std::string& path, const std::string& name) {
    if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) return {};
    int err = errno;
    if (err == EINVAL || err == ENOSYS) {
        // Filesystems without RENAME_NOREPLACE: link() refuses an existing name too.
        if (::link(temp.c_str(), path.c_str()) == 0) {
            ::unlink(temp.c_str());
            return {};
        }
        err = errno;
    }
    if (err == EEXIST) return appeared_meanwhile(name);
    return io_fail(name, "cannot rename the finished output into place", err);
}

namespace {

result<void> copy_range(int from, int to, std::uint64_t pos, std::uint64_t end, const std::string& name) {
    while (pos < end) {
        loff_t in = static_cast<loff_t>(pos), out = static_cast<loff_t>(pos);
        const ssize_t n = ::copy_file_range(from, &in, to, &out,
                                            static_cast<std::size_t>(std::min<std::uint64_t>(end - pos, 1u << 30)), 0);
        if (n > 0) {
            pos += static_cast<std::uint64_t>(n);
            continue;
        }
        if (n == 0) return fail(errc::io_error, name + ": the output became shorter while it was copied");
        if (errno == EINTR) continue;
        if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
            return io_fail(name, "write failed", errno);
        // No in-kernel copy between these files: plain reads and writes.
        constexpr std::size_t chunk = std::size_t{1} << 20;
        auto buf = std::make_unique_for_overwrite<std::uint8_t[]>(chunk);
        while (pos < end) {
            const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(end - pos, chunk));
            const ssize_t got = posix_io::pread_some(from, buf.get(), want, pos);
            if (got <= 0) return io_fail(name, "cannot read back the output", got < 0 ? errno : EIO);
            if (const int err = posix_io::pwrite_all(to, buf.get(), static_cast<std::size_t>(got), pos))
                return io_fail(name, "write failed", err);
            pos += static_cast<std::uint64_t>(got);
        }
    }
    return {};
}

// Make [pos, end) of `to` read as zeros: a hole where possible, else written zeros.
result<void> zero_range(int to, std::uint64_t pos, std::uint64_t end, const std::string& name) {
    if (::fallocate(to, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(pos),
                    static_cast<off_t>(end - pos)) == 0)
        return {};
    static const std::uint8_t zeros[65536] = {};
    while (pos < end) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(end - pos, sizeof zeros));
        if (const int err = posix_io::pwrite_all(to, zeros, n, pos)) return io_fail(name, "write failed", err);
        pos += n;
    }
    return {};
}

}  // namespace

result<void> reserve_for_copy(int from, int to, std::uint64_t size, const std::string& name) {
    struct stat old {};
    if (::fstat(to, &old) != 0) return io_fail(name, "cannot stat", errno);
    for (std::uint64_t pos = 0; pos < size;) {
        const off_t data = ::lseek(from, static_cast<off_t>(pos), SEEK_DATA);
        if (data < 0 && errno == ENXIO) return {};
        const std::uint64_t start = data < 0 ? pos : static_cast<std::uint64_t>(data);
        if (start >= size) return {};
        const off_t hole = data < 0 ? -1 : ::lseek(from, data, SEEK_HOLE);
        const std::uint64_t end = hole < 0 ? size : std::min<std::uint64_t>(static_cast<std::uint64_t>(hole), size);
        if (end <= start) return {};
        if (::fallocate(to, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(start), static_cast<off_t>(end - start)) != 0) {
            const int err = errno;
            if (err != ENOSPC && err != EDQUOT && err != EFBIG) return {};  // cannot tell: the copy will
            // Frees what was allocated past the end; the lack of space is the error to report.
            // (A cast to void does not silence glibc's warn_unused_result under _FORTIFY_SOURCE.)
            if (end > static_cast<std::uint64_t>(old.st_size) && ::ftruncate(to, old.st_size) != 0) {
            }
            return io_fail(name, "not enough space to rewrite the file (it is unchanged)", err);
        }
        pos = end;
    }
    return {};
}

result<void> copy_into_inode(int from, int to, std::uint64_t size, bool durable, const std::string& name) {
    for (std::uint64_t pos = 0; pos < size;) {
        off_t data = ::lseek(from, static_cast<off_t>(pos), SEEK_DATA);
        const std::uint64_t data_at = data < 0 ? (errno == ENXIO ? size : pos) : std::min<std::uint64_t>(data, size);
        if (data_at > pos) {
            if (auto z = zero_range(to, pos, data_at, name); !z) return z;
            pos = data_at;
            continue;
        }
        const off_t hole = ::lseek(from, static_cast<off_t>(pos), SEEK_HOLE);
        const std::uint64_t end = hole < 0 ? size : std::min<std::uint64_t>(static_cast<std::uint64_t>(hole), size);
        if (auto c = copy_range(from, to, pos, std::max(end, pos + 1), name); !c) return c;
        pos = std::max(end, pos + 1);
    }
    if (::ftruncate(to, static_cast<off_t>(size)) != 0) return io_fail(name, "cannot set the length", errno);
    if (durable && ::fsync(to) != 0) return io_fail(name, "cannot flush the output to disk", errno);
    return {};
}

void sync_folder(const std::string& path) {
    const auto slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);  // best effort: the file itself is already durable and in place
    ::close(fd);
}

result<int> make_temp_beside(const std::string& folder, const std::string& base, const std::string& name,
                             std::string& temp) {
    remove_stale_temps(folder, base);
    temp = temp_template(folder, base);
    const int fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd < 0) return io_fail(name, "cannot create a temporary file beside it", errno);
    mark_temp_alive(fd);
    return fd;
}

}  // namespace rdelta::io_detail
