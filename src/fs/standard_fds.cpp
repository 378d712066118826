// standard_fds.cpp - descriptors 0-2 are never left closed (rdelta/process.hpp
// ensure_standard_fds_open).
//
// open() returns the lowest free number. Started with stderr closed, the first
// output opened would become fd 2, and every message or progress line meant for
// standard error would be written into the output's data.
//
// A closed stdin or stdout is held by /dev/null opened the other way round
// (write-only on 0, read-only on 1): reading `-` then fails with EBADF, as it
// would on the closed descriptor, instead of reading an empty file and writing a
// signature of nothing; writing `-` fails instead of discarding the output with
// status 0. Standard error stays writable: messages to it are lost either way.
#include <rdelta/process.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>

namespace rdelta {

bool ensure_standard_fds_open() noexcept {
    for (int fd = 0; fd <= 2; ++fd) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        // Lowest free number: this is `fd` itself, since the lower ones are open.
        const int opened = ::open("/dev/null", fd == 1 ? O_RDONLY : O_WRONLY);
        if (opened < 0) return false;
        if (opened != fd) {  // cannot happen, but never leave a wrong number behind
            ::close(opened);
            return false;
        }
    }
    return true;
}

}  // namespace rdelta
