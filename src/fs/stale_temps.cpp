// stale_temps.cpp - the named temporary outputs of dead runs.
//
// Where O_TMPFILE is missing (NFS, some FUSE filesystems, no /proc) an output is
// written to `.NAME.rdelta-XXXXXX` and renamed when complete. The cleanup signals
// remove it, but SIGKILL, the OOM killer or a reboot leave it, as large as the
// output: the next night's run could then fail for lack of space. Every temporary
// output is flocked by its run, so one that nobody holds belongs to a dead run.
#include "stale_temps.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cctype>
#include <cerrno>
#include <ctime>

namespace rdelta::io_detail {

namespace {

// A writer still starting (between creating its file and locking it), or a run of
// a version that did not lock, has touched its file recently.
constexpr std::time_t quiet_seconds = 600;

bool six_alnum(const std::string& s, std::size_t from) {
    if (s.size() != from + 6) return false;
    for (std::size_t i = from; i < s.size(); ++i)
        if (!std::isalnum(static_cast<unsigned char>(s[i]))) return false;
    return true;
}

// Opened without following links and checked on the descriptor, so what is judged
// is what would be deleted.
bool dead_run_temp(int dir, const char* entry) {
    const int fd = ::openat(dir, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return false;
    struct stat st {};
    bool dead = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == ::geteuid() &&
                std::time(nullptr) - st.st_mtime >= quiet_seconds && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (dead) {  // still the same file under that name
        struct stat now {};
        dead =
            ::fstatat(dir, entry, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino;
    }
    ::close(fd);
    return dead;
}

}  // namespace

bool is_temp_name(const std::string& entry, const std::string& base) {
    const std::string own = "." + base + ".rdelta-";
    if (entry.rfind(own, 0) == 0 && six_alnum(entry, own.size())) return true;
    return entry.rfind(".rdelta-", 0) == 0 && six_alnum(entry, sizeof(".rdelta-") - 1);
}

void remove_stale_temps(const std::string& folder, const std::string& base) {
    DIR* d = ::opendir(folder.c_str());
    if (!d) return;
    const int dir = ::dirfd(d);
    while (const dirent* e = ::readdir(d)) {
        const std::string entry = e->d_name;
        if (is_temp_name(entry, base) && dead_run_temp(dir, entry.c_str())) (void)::unlinkat(dir, entry.c_str(), 0);
    }
    ::closedir(d);
}

void mark_temp_alive(int fd) {
    (void)::flock(fd, LOCK_EX | LOCK_NB);
}

}  // namespace rdelta::io_detail
