// applied_record.cpp - the note a file keeps of the delta without checksum trailer
// that last patched it in place (rdelta/in_place.hpp, applied_delta).
//
// The extended attribute `user.rdelta.applied` holds "1 DEV INO SIZE SEC NSEC
// DIGEST". The patch writes it before it commits, with a modification time it
// chooses, and gives the file that time once it is done (a recovery that finishes
// the patch does the same), so the record describes the file exactly when nothing
// has changed it since: a copy (another inode), a write or a truncation (another
// size or time) makes the record stale, and the delta may be applied again.
#include "fs/posix_util.hpp"

#include "in_place_fd_state.hpp"

#include <rdelta/in_place_fd.hpp>

#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <string>

namespace rdelta {

namespace {

constexpr const char* attribute = "user.rdelta.applied";

struct record {
    std::uint64_t dev = 0, ino = 0;
    applied_delta delta;
};

std::string encode(const record& r) {
    char text[160];
    int n = std::snprintf(text, sizeof text, "1 %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " ", r.dev,
                          r.ino, r.delta.size, r.delta.mtime_s, r.delta.mtime_ns);
    for (const std::uint8_t b : r.delta.digest)
        n += std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), "%02x", b);
    return std::string(text, static_cast<std::size_t>(n));
}

std::optional<record> decode(const std::string& text) {
    record r;
    char hex[33] = {};
    if (std::sscanf(text.c_str(), "1 %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNd64 " %" SCNd64 " %32[0-9a-f]", &r.dev,
                    &r.ino, &r.delta.size, &r.delta.mtime_s, &r.delta.mtime_ns, hex) != 6)
        return {};
    for (std::size_t i = 0; i < r.delta.digest.size(); ++i) {
        unsigned v = 0;
        if (std::sscanf(hex + 2 * i, "%2x", &v) != 1) return {};
        r.delta.digest[i] = static_cast<std::uint8_t>(v);
    }
    return r;
}

std::optional<record> read_record(int fd) {
    char value[160];
    const ssize_t n = ::fgetxattr(fd, attribute, value, sizeof value - 1);
    if (n <= 0) return {};
    return decode(std::string(value, static_cast<std::size_t>(n)));
}

}  // namespace

bool in_place_fd::can_remember_applied() {
    char value[1];
    return ::fgetxattr(s_->fd_, attribute, value, 0) >= 0 || errno == ENODATA;
}

result<void> in_place_fd::remember_applied(const applied_delta& delta) {
    record r{s_->dev_, s_->ino_, delta};
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    r.delta.mtime_s = now.tv_sec, r.delta.mtime_ns = now.tv_nsec;
    const std::string value = encode(r);
    if (::fsetxattr(s_->fd_, attribute, value.data(), value.size(), 0) != 0)
        return io_detail::io_fail(s_->name_, "cannot record the delta applied (extended attribute)", errno);
    if (::fsync(s_->fd_) != 0) return io_detail::io_fail(s_->name_, "fsync failed", errno);
    return {};
}

std::optional<applied_delta> in_place_fd::last_applied() {
    const auto r = read_record(s_->fd_);
    struct stat st {};
    if (!r || ::fstat(s_->fd_, &st) != 0) return {};
    if (r->dev != s_->dev_ || r->ino != s_->ino_ || static_cast<std::uint64_t>(st.st_size) != r->delta.size ||
        st.st_mtim.tv_sec != r->delta.mtime_s || st.st_mtim.tv_nsec != r->delta.mtime_ns)
        return {};
    return r->delta;
}

void in_place_fd::settle_applied() {
    const auto r = read_record(s_->fd_);
    struct stat st {};
    if (!r || r->dev != s_->dev_ || r->ino != s_->ino_ || ::fstat(s_->fd_, &st) != 0 ||
        static_cast<std::uint64_t>(st.st_size) != r->delta.size)
        return;
    const timespec times[2] = {{0, UTIME_OMIT},
                               {static_cast<time_t>(r->delta.mtime_s), static_cast<long>(r->delta.mtime_ns)}};
    if (::futimens(s_->fd_, times) == 0) (void)::fsync(s_->fd_);
}

void in_place_fd::forget_applied() {
    (void)::fremovexattr(s_->fd_, attribute);
}

}  // namespace rdelta
