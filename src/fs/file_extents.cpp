// file_extents.cpp - the size of a file or block device, and its holes, as seen
// through an open descriptor (posix_util.hpp): inputs, outputs and images ask.
#include "posix_util.hpp"

#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>

namespace rdelta {

namespace io_detail {

std::int64_t random_access_size(int fd, const struct stat& st) {
    if (S_ISREG(st.st_mode)) return st.st_size;
    std::uint64_t bytes = 0;
    if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &bytes) == 0) return static_cast<std::int64_t>(bytes);
    return -1;
}

// SEEK_DATA finds the next byte that is not in a hole. ENXIO means no data
// follows, and also that `pos` is at or past the end: a file that shrank while it
// was read is not a hole there (its bytes must be read, and found missing, or a
// signature would describe zeros and a patch would copy them in silently).
bool hole_at(int fd, std::uint64_t pos, std::uint64_t len) {
    const off_t data = ::lseek(fd, static_cast<off_t>(pos), SEEK_DATA);
    if (data >= 0) return static_cast<std::uint64_t>(data) >= pos + len;
    if (errno != ENXIO) return false;
    struct stat st {};
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pos + len <= static_cast<std::uint64_t>(st.st_size);
}

bool hole_or_past_end(int fd, std::uint64_t pos, std::uint64_t len) {
    const off_t data = ::lseek(fd, static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0) return errno == ENXIO;
    return static_cast<std::uint64_t>(data) >= pos + len;
}

}  // namespace io_detail

}  // namespace rdelta
