// in_place_fd.cpp - a regular file opened for reading and writing, patched in place.
#include "core/posix_io.hpp"
#include "fs/path_walk.hpp"
#include "fs/posix_util.hpp"
#include "unfinished_update.hpp"
#include "update_marker.hpp"

#include "in_place_fd_state.hpp"

#include <rdelta/in_place_fd.hpp>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <new>
#include <stdexcept>

namespace rdelta {

using io_detail::io_fail;

bool in_place_fd::is_hole(std::uint64_t pos, std::uint64_t len) {
    return io_detail::hole_or_past_end(s_->fd_, pos, len);
}

result<in_place_fd> in_place_fd::open(const std::string& path) {
    auto walked = io_detail::open_walked(path, O_RDWR, "cannot open for reading and writing");
    if (!walked) return std::move(walked).err();
    if (!S_ISREG(walked->st.st_mode))
        return fail(errc::io_error, path + ": not a regular file: it cannot be patched in place");
    if (auto torn = io_detail::refuse_torn_image(walked->fd, path, walked->st); !torn) return std::move(torn).err();
    in_place_fd f;
    state& st = *f.s_;
    st.fd_ = std::exchange(walked->fd, -1), st.folder_ = std::exchange(walked->folder, -1);
    st.name_ = path, st.base_ = std::move(walked->base), st.folder_name_ = std::move(walked->folder_name);
    st.st_ = walked->st;
    st.size_ = static_cast<std::uint64_t>(st.st_.st_size);
    st.dev_ = static_cast<std::uint64_t>(st.st_.st_dev), st.ino_ = static_cast<std::uint64_t>(st.st_.st_ino);
    return f;
}

std::pair<bool, std::uint64_t> in_place_fd::extent(std::uint64_t pos, std::uint64_t limit) {
    if (limit == 0) return {false, 0};
    const off_t data = ::lseek(s_->fd_, static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0) {
        // ENXIO: only a hole from here to the end. Other errors: assume data (always safe).
        return {errno == ENXIO && pos < s_->size_, limit};
    }
    if (static_cast<std::uint64_t>(data) > pos) return {true, std::min(limit, static_cast<std::uint64_t>(data) - pos)};
    const off_t hole = ::lseek(s_->fd_, static_cast<off_t>(pos), SEEK_HOLE);
    if (hole <= static_cast<off_t>(pos)) return {false, limit};
    return {false, std::min(limit, static_cast<std::uint64_t>(hole) - pos)};
}

result<void> in_place_fd::punch_hole(std::uint64_t pos, std::uint64_t len) {
    if (::fallocate(s_->fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(pos),
                    static_cast<off_t>(len)) == 0)
        return {};
    if (errno != EOPNOTSUPP && errno != ENOSYS) return io_fail(s_->name_, "cannot punch a hole", errno);
    return in_place_file::punch_hole(pos, len);
}

result<void> in_place_fd::lock() {
    if (::flock(s_->fd_, LOCK_EX | LOCK_NB) == 0) return {};
    if (errno == EWOULDBLOCK)
        return fail(errc::io_error, s_->name_ + ": another rdelta is patching or recovering it (locked)");
    return io_fail(s_->name_, "cannot lock", errno);
}

result<void> in_place_fd::mark_journaled(const std::string& journal, std::uint64_t nonce) {
    const auto kind = journal.empty() ? io_detail::update_kind::unjournaled : io_detail::update_kind::journal;
    const int e = io_detail::set_update_marker(s_->fd_, s_->dev_, s_->ino_, kind, journal, true, nonce);
    // Without attributes the journal's name alone finds it, as it always did; a
    // file system that has them but refused this one (full, quota) would leave a
    // journal that recovery takes for stale, so nothing is written then.
    if (e == 0 || e == ENOTSUP) return {};
    return io_fail(s_->name_, "cannot note on it which journal restores it", e);
}

in_place_file::journal_binding in_place_fd::journal_binding_of(std::uint64_t nonce) {
    switch (io_detail::claim_of_journal(s_->fd_, s_->st_, nonce)) {
        case io_detail::journal_claim::current: return journal_binding::bound;
        case io_detail::journal_claim::stale: return journal_binding::stale;
        case io_detail::journal_claim::unknown: break;
    }
    return journal_binding::unknown;
}

void in_place_fd::clear_journal_mark() {
    io_detail::clear_update_marker(s_->fd_);
}

std::pair<std::int64_t, std::int64_t> in_place_fd::change_time() {
    struct stat st {};
    if (::fstat(s_->fd_, &st) != 0) return {0, 0};
    return {static_cast<std::int64_t>(st.st_ctim.tv_sec), static_cast<std::int64_t>(st.st_ctim.tv_nsec)};
}

std::pair<std::int64_t, std::int64_t> in_place_fd::modification_time() {
    struct stat st {};
    if (::fstat(s_->fd_, &st) != 0) return {0, 0};
    return {static_cast<std::int64_t>(st.st_mtim.tv_sec), static_cast<std::int64_t>(st.st_mtim.tv_nsec)};
}

result<void> in_place_fd::sync() {
    if (::fsync(s_->fd_) != 0) return io_fail(s_->name_, "fsync failed", errno);
    return {};
}

in_place_fd::in_place_fd() : s_(std::make_unique<state>()) {}
in_place_fd::in_place_fd(in_place_fd&& other) noexcept = default;
in_place_fd::~in_place_fd() = default;

std::uint64_t in_place_fd::size() const {
    return s_->size_;
}

std::pair<std::uint64_t, std::uint64_t> in_place_fd::identity() const {
    return {s_->dev_, s_->ino_};
}

const std::string& in_place_fd::name() const noexcept {
    return s_->name_;
}

result<std::size_t> in_place_fd::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    const ssize_t r = posix_io::pread_some(s_->fd_, out.data(), out.size(), pos);
    if (r < 0) return io_fail(s_->name_, "read failed", errno);
    return static_cast<std::size_t>(r);
}

result<void> in_place_fd::write(std::uint64_t pos, std::span<const std::uint8_t> bytes) {
    if (const int err = posix_io::pwrite_all(s_->fd_, bytes.data(), bytes.size(), pos))
        return io_fail(s_->name_, "write failed", err);
    s_->size_ = std::max(s_->size_, pos + bytes.size());
    return {};
}

result<void> in_place_fd::resize(std::uint64_t size) {
    if (::ftruncate(s_->fd_, static_cast<off_t>(size)) != 0) return io_fail(s_->name_, "cannot set the length", errno);
    s_->size_ = size;
    return {};
}

}  // namespace rdelta
