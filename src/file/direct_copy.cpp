// direct_copy.cpp - COPY runs of a patch from a file basis into a file output,
// copied inside the kernel (copy_file_range): no pass through user space, and the
// filesystem may share the extents instead of copying them (XFS, btrfs reflinks).
#include "fs/posix_util.hpp"
#include "output_file_state.hpp"

#include <rdelta/output_file.hpp>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>

namespace rdelta {

using io_detail::io_fail;

namespace {

// The kernel cannot copy between these two files (or not this way): write instead.
bool copy_unsupported(int err) {
    return err == EXDEV || err == EINVAL || err == EOPNOTSUPP || err == ENOSYS || err == EBADF || err == EPERM;
}

// In a sparse output a hole of the source stays a hole. Returns the length of the
// hole at `pos` (0: data there), or nothing when no data follows `pos` (the end of
// the file, or a hole up to it: left to the job, which knows the basis size).
std::optional<std::uint64_t> hole_length(int fd, std::uint64_t pos, std::uint64_t len) {
    const off_t data = ::lseek(fd, static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0) return std::nullopt;
    return std::min(len, static_cast<std::uint64_t>(data) - pos);
}

// Where the data run at `pos` ends (the next hole, or the end of the file).
std::uint64_t data_end(int fd, std::uint64_t pos) {
    const off_t hole = ::lseek(fd, static_cast<off_t>(pos), SEEK_HOLE);
    if (hole <= static_cast<off_t>(pos)) return pos;  // unknown: no run to remember
    return static_cast<std::uint64_t>(hole);
}

// Filesystems whose copy_file_range can share extents or copy on the server.
// bcachefs and ZFS have no constant in linux/magic.h.
bool shares_extents(unsigned long fs_type) {
    constexpr unsigned long bcachefs = 0xca451a4e, zfs = 0x2fc12fc1;
    switch (fs_type) {
        case XFS_SUPER_MAGIC:
        case BTRFS_SUPER_MAGIC:
        case OCFS2_SUPER_MAGIC:
        case NFS_SUPER_MAGIC:
        case CIFS_SUPER_MAGIC:
        case SMB2_SUPER_MAGIC:
        case bcachefs:
        case zfs: return true;
        default: return false;
    }
}

}  // namespace

bool output_file::copy_may_share_extents() const noexcept {
    struct statfs fs {};
    if (s_->kind_ == io_detail::output_kind::stream || ::fstatfs(s_->fd_, &fs) != 0) return false;
    return shares_extents(static_cast<unsigned long>(fs.f_type) & 0xffffffffu);
}

result<std::uint64_t> output_file::append_copy(int from_fd, std::uint64_t from, std::uint64_t len, std::uint64_t at) {
    if (s_->kind_ == io_detail::output_kind::stream || s_->no_direct_copy_ || at != s_->pos_) return std::uint64_t{0};
    std::uint64_t done = 0;
    while (done < len) {
        const std::uint64_t pos = from + done;
        std::uint64_t run = len - done;
        // A run inside the data run found last needs no lookup: a dense basis costs
        // two lseeks for the whole patch, not two per COPY.
        const bool known_data = from_fd == s_->data_fd_ && pos >= s_->data_from_ && pos < s_->data_to_;
        if (s_->sparse_ && known_data) {
            run = std::min(run, s_->data_to_ - pos);
        } else if (s_->sparse_) {
            const auto hole = hole_length(from_fd, pos, run);
            if (!hole) break;
            if (*hole > 0) {
                if (::lseek(s_->fd_, static_cast<off_t>(*hole), SEEK_CUR) < 0)
                    return io_fail(s_->name_, "seek failed", errno);
                s_->pos_ += *hole, done += *hole;
                continue;
            }
            const std::uint64_t end = data_end(from_fd, pos);
            if (end > pos) s_->data_fd_ = from_fd, s_->data_from_ = pos, s_->data_to_ = end;
            run = end > pos ? std::min(run, end - pos) : run;
        }
        off_t in = static_cast<off_t>(pos);
        const ssize_t n = ::copy_file_range(from_fd, &in, s_->fd_, nullptr, std::min<std::uint64_t>(run, 1u << 30), 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (copy_unsupported(errno)) {
                s_->no_direct_copy_ = true;
                break;
            }
            return io_fail(s_->name_, "copying from the basis failed", errno);
        }
        if (n == 0) break;  // the source ended: the job reports a COPY past its end
        s_->pos_ += static_cast<std::uint64_t>(n), done += static_cast<std::uint64_t>(n);
        if (s_->nocache_)
            drop_written_pages(false);
        else if (s_->durable_)
            start_writeback();
    }
    return done;
}

std::function<result<std::uint64_t>(std::uint64_t, std::uint64_t, std::uint64_t)> direct_file_copy(file_basis& basis,
                                                                                                   output_file& out) {
    return [&basis, &out](std::uint64_t pos, std::uint64_t len, std::uint64_t at) -> result<std::uint64_t> {
        auto copied = out.append_copy(basis.fd_, basis.offset_ + pos, len, at);
        if (copied && *copied > 0 && basis.nocache_) basis.drop_behind(basis.offset_ + pos + *copied);
        return copied;
    };
}

}  // namespace rdelta
