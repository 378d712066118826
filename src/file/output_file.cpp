// output_file.cpp - outputs: standard output, a device written in place, or a
// temporary file published under its name only when complete.
#include "core/posix_io.hpp"
#include "fs/file_metadata.hpp"
#include "fs/posix_util.hpp"
#include "fs/publish.hpp"
#include "fs/storage_overlap.hpp"
#include "inplace/pending_rewrite.hpp"
#include "inplace/update_marker.hpp"
#include "output_file_state.hpp"
#include "output_target.hpp"

#include <rdelta/output_file.hpp>

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
#include <cstdlib>
#include <cstring>
#include <string>

namespace rdelta {

using io_detail::io_fail;
using io_detail::register_temp;
using io_detail::unregister_temp;

namespace {

// The descriptor a name like /dev/stdout, /dev/fd/N or /proc/self/fd/N stands
// for in this process, or -1: writing through a duplicate keeps the caller's
// offset and append mode, as a shell redirection expects.
int own_descriptor(const std::string& path) {
    if (path == "/dev/stdout") return 1;
    if (path == "/dev/stderr") return 2;
    std::string number;
    const std::string prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/",
                                    "/proc/" + std::to_string(getpid()) + "/fd/"};
    for (const auto& prefix : prefixes)
        if (path.rfind(prefix, 0) == 0) number = path.substr(prefix.size());
    if (number.empty() || number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos) return -1;
    const int fd = std::stoi(number);
    return ::fcntl(fd, F_GETFD) >= 0 ? fd : -1;
}

// Open a stream found by resolve_output(). A name standing for a descriptor is
// opened as the kernel resolves it. Any other is first held without opening it
// (O_PATH: a FIFO does not block, a device sees no open) and checked to be the
// file resolve_output() judged, then reopened through that descriptor: a name
// swapped meanwhile for a symlink or another file is never written.
result<int> open_stream(const io_detail::output_target& t, const std::string& name) {
    if (t.by_descriptor) {
        const int own = own_descriptor(t.path);
        const int fd = own >= 0 ? ::fcntl(own, F_DUPFD_CLOEXEC, 3) : ::open(t.path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) return io_fail(name, "cannot open for writing", errno);
        return fd;
    }
    const int held = ::open(t.path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (held < 0) return io_fail(name, "cannot open for writing", errno);
    struct stat st {};
    const bool same = ::fstat(held, &st) == 0 && st.st_dev == t.st.st_dev && st.st_ino == t.st.st_ino;
    int fd = -1;
    if (same) {
        fd = ::open(("/proc/self/fd/" + std::to_string(held)).c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)  // no /proc: by name, checked once open
            fd = ::open(t.path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    }
    const int err = errno;
    ::close(held);
    if (!same) return fail(errc::io_error, name + ": the file was replaced while it was opened");
    if (fd < 0) return io_fail(name, "cannot open for writing", err);
    if (::fstat(fd, &st) != 0 || st.st_dev != t.st.st_dev || st.st_ino != t.st.st_ino) {
        ::close(fd);
        return fail(errc::io_error, name + ": the file was replaced while it was opened");
    }
    return fd;
}

mode_t creation_mode() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

}  // namespace

bool output_file::overwrites(int fd) const {
    return s_->kind_ == io_detail::output_kind::stream && io_detail::shares_storage(s_->fd_, fd);
}

result<void> output_file::check(const std::string& path, bool force) {
    if (is_std_stream(path)) return {};
    auto target = io_detail::resolve_output(path, force);
    if (!target) return std::move(target).err();
    return {};
}

result<output_file> output_file::create(const std::string& path, bool force) {
    output_file out;
    out.s_->name_ = is_std_stream(path) ? "standard output" : path;
    out.s_->force_ = force;
    if (is_std_stream(path)) {
        out.s_->fd_ = 1;
        return out;
    }
    auto target = io_detail::resolve_output(path, force);
    if (!target) return std::move(target).err();
    out.s_->path_ = target->path;
    out.s_->kind_ = target->kind;
    switch (target->kind) {
        case io_detail::output_kind::stream: {
            auto fd = open_stream(*target, out.s_->name_);
            if (!fd) return std::move(fd).err();
            out.s_->fd_ = *fd;
            return out;
        }
        case io_detail::output_kind::new_file:
        case io_detail::output_kind::replace: {
            out.s_->fd_ = io_detail::open_unnamed_in(target->folder);
            out.s_->unnamed_ = out.s_->fd_ >= 0;
            if (!out.s_->unnamed_) {  // a named temporary file, removed on error and by the cleanup signals
                auto fd = io_detail::make_temp_beside(target->folder, target->base, out.s_->name_, out.s_->temp_);
                if (!fd) return std::move(fd).err();
                out.s_->fd_ = *fd;
                register_temp(out.s_->temp_);
            }
            if (target->kind == io_detail::output_kind::new_file || !target->carry_metadata) {
                ::fchmod(out.s_->fd_, creation_mode());
                return out;
            }
            if (auto kept = io_detail::carry_owner_and_mode(out.s_->fd_, target->st, out.s_->name_); !kept)
                return std::move(kept).err();
            out.s_->warning_ = io_detail::carry_xattrs(target->path, out.s_->fd_);
            return out;
        }
        case io_detail::output_kind::rewrite_inode:
            return create_rewrite(std::move(out), target->folder, target->base, target->st);
    }
    return fail(errc::internal_error, out.s_->name_ + ": unknown output kind");
}

// The existing file is kept open and rewritten at commit(); until then the output
// goes to a staging file beside it (when its folder is writable) or in $TMPDIR,
// unnamed where the filesystem allows. It is named when complete, just before the
// rewrite, and keeps that name until the rewrite is done: a rewrite that fails or
// is cut short (kill, crash) leaves the complete new content there, and a named
// staging file never holds less.
result<output_file> output_file::create_rewrite(output_file out, const std::string& folder, const std::string& base,
                                                const struct stat& st) {
    out.s_->target_fd_ = ::open(out.s_->path_.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (out.s_->target_fd_ < 0) return io_fail(out.s_->name_, "cannot open for writing", errno);
    struct stat now {};
    if (::fstat(out.s_->target_fd_, &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev)
        return fail(errc::io_error, out.s_->name_ + ": the file was replaced while it was opened");
    // Two rewrites of one inode (or a rewrite and an in-place patch) must not interleave.
    if (::flock(out.s_->target_fd_, LOCK_EX | LOCK_NB) != 0)
        return errno == EWOULDBLOCK ? fail(errc::io_error, out.s_->name_ + ": another rdelta is writing it (locked)")
                                    : io_fail(out.s_->name_, "cannot lock", errno);
    const char* tmpdir = std::getenv("TMPDIR");
    const bool here = ::faccessat(AT_FDCWD, folder.c_str(), W_OK | X_OK, AT_EACCESS) == 0;
    out.s_->staging_folder_ = here ? folder : (tmpdir && *tmpdir ? tmpdir : "/tmp");
    out.s_->pending_ = io_detail::pending_rewrite_path(out.s_->staging_folder_, folder, base, st);
    out.s_->fd_ = io_detail::open_unnamed_in(out.s_->staging_folder_);
    out.s_->unnamed_ = out.s_->fd_ >= 0;
    if (out.s_->unnamed_) return out;
    auto fd = io_detail::make_temp_beside(out.s_->staging_folder_, base, out.s_->name_, out.s_->temp_);
    if (!fd) return std::move(fd).err();
    out.s_->fd_ = *fd;
    register_temp(out.s_->temp_);
    return out;
}

output_file::output_file() : s_(std::make_unique<state>()) {}

output_file::output_file(output_file&& other) noexcept = default;

output_file::~output_file() {
    if (s_) discard();  // a moved-from output owns nothing
}

void output_file::set_sparse(bool on) noexcept {
    s_->sparse_ = on && s_->kind_ != io_detail::output_kind::stream;
}

void output_file::set_nocache(bool on) noexcept {
    s_->nocache_ = on && s_->kind_ != io_detail::output_kind::stream;
}

void output_file::set_durable(bool on) noexcept {
    s_->durable_ = on;
}

const std::string& output_file::name() const noexcept {
    return s_->name_;
}

bool output_file::can_read_back() const noexcept {
    return s_->kind_ != io_detail::output_kind::stream;
}

const std::string& output_file::warning() const noexcept {
    return s_->warning_;
}

void output_file::discard() noexcept {
    if (!s_->temp_.empty()) {
        ::unlink(s_->temp_.c_str());
        unregister_temp();
        s_->temp_.clear();
    }
    if (s_->fd_ > 2) ::close(s_->fd_);
    if (s_->target_fd_ >= 0) ::close(s_->target_fd_);
    s_->fd_ = s_->target_fd_ = -1;
}

namespace {

constexpr std::size_t hole_unit = 4096;

bool all_zero(const std::uint8_t* p, std::size_t n) {
    static const std::uint8_t zeros[hole_unit] = {};
    return std::memcmp(p, zeros, n) == 0;
}

}  // namespace

result<void> output_file::write(std::span<const std::uint8_t> bytes) {
    if (!s_->sparse_) {
        s_->pos_ += bytes.size();
        return write_all(bytes);
    }
    const std::uint8_t* p = bytes.data();
    std::size_t n = bytes.size();
    // Runs of units aligned to the output offset, all zero or all not.
    while (n > 0) {
        std::size_t len = std::min<std::size_t>(n, hole_unit - s_->pos_ % hole_unit);
        const bool zero = all_zero(p, len);
        while (len < n) {
            const std::size_t unit = std::min(n - len, hole_unit);
            if (all_zero(p + len, unit) != zero) break;
            len += unit;
        }
        if (zero) {
            if (::lseek(s_->fd_, static_cast<off_t>(len), SEEK_CUR) < 0)
                return io_fail(s_->name_, "seek failed", errno);
        } else if (auto written = write_all({p, len}); !written) {
            return written;
        }
        s_->pos_ += len, p += len, n -= len;
    }
    return {};
}

byte_sink output_file::sink() {
    return [this](std::span<const std::uint8_t> bytes) { return write(bytes); };
}

result<void> output_file::write_all(std::span<const std::uint8_t> bytes) {
    // At most 32 KiB per write(): its size sets the order of the page-cache folios
    // the filesystem allocates (ext4 and XFS have large folios). Folios of order 3
    // (32 KiB) or less are recycled through the per-CPU free lists, while larger ones
    // come from the buddy allocator's big free blocks, which a virtual machine may
    // have handed back to its host: 64 KiB writes made some patches several times
    // slower (bench/README.md, "Measurements behind design choices").
    constexpr std::size_t piece = std::size_t{32} << 10;
    const std::uint8_t* p = bytes.data();
    std::size_t n = bytes.size();
    while (n > 0) {
        const std::size_t k = std::min(n, piece);
        if (const int err = posix_io::write_all(s_->fd_, p, k)) return io_fail(s_->name_, "write failed", err);
        p += k, n -= k;
    }
    if (s_->nocache_)
        drop_written_pages(false);
    else if (s_->durable_ && s_->kind_ != io_detail::output_kind::stream)
        start_writeback();
    return {};
}

// A durable output is flushed by commit(); starting the writeback of each 32 MiB
// as soon as it is written keeps that final wait short.
void output_file::start_writeback() {
    constexpr std::uint64_t window = std::uint64_t{32} << 20;
    while (s_->flushing_to_ + window <= s_->pos_) {
        sync_file_range(s_->fd_, static_cast<off_t>(s_->flushing_to_), static_cast<off_t>(window),
                        SYNC_FILE_RANGE_WRITE);
        s_->flushing_to_ += window;
    }
}

// Written pages are dirty and cannot be dropped until they reach the disk: start
// writeback of each 32 MiB window, then wait for and drop the one before it.
void output_file::drop_written_pages(bool final) {
    constexpr std::uint64_t window = std::uint64_t{32} << 20;
    while (final ? s_->dropped_to_ < s_->pos_ : s_->dropped_to_ + 2 * window <= s_->pos_) {
        const std::uint64_t len = final ? s_->pos_ - s_->dropped_to_ : window;
        sync_file_range(s_->fd_, static_cast<off_t>(s_->dropped_to_ + window), static_cast<off_t>(window),
                        SYNC_FILE_RANGE_WRITE);
        sync_file_range(s_->fd_, static_cast<off_t>(s_->dropped_to_), static_cast<off_t>(len),
                        SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
        posix_fadvise(s_->fd_, static_cast<off_t>(s_->dropped_to_), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
        s_->dropped_to_ += len;
    }
}

result<std::size_t> output_file::read_back(std::uint64_t pos, std::span<std::uint8_t> out) const {
    const ssize_t r = posix_io::pread_some(s_->fd_, out.data(), out.size(), pos);
    if (r < 0) return io_fail(s_->name_, "cannot read back the output", errno);
    return static_cast<std::size_t>(r);
}

bool output_file::hole_in_written(std::uint64_t pos, std::uint64_t len) const {
    return io_detail::hole_or_past_end(s_->fd_, pos, len);
}

result<void> output_file::commit() {
    if (s_->kind_ == io_detail::output_kind::stream) return {};
    // A file that ends in a hole needs its length set explicitly.
    if (s_->sparse_ && ::ftruncate(s_->fd_, static_cast<off_t>(s_->pos_)) != 0)
        return io_fail(s_->name_, "cannot set the length", errno);
    if (s_->nocache_) drop_written_pages(true);
    const auto kind = s_->kind_;
    if (kind == io_detail::output_kind::rewrite_inode) {
        // Its new content was not vetted by whoever made the file privileged.
        struct stat st {};
        if (::fstat(s_->target_fd_, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)) != 0 &&
            ::fchmod(s_->target_fd_, st.st_mode & 01777) != 0)
            return io_fail(s_->name_, "cannot clear the setuid and setgid bits", errno);
        return rewrite_inode();
    }
    if (s_->durable_ && ::fsync(s_->fd_) != 0) return io_fail(s_->name_, "cannot flush the output to disk", errno);
    if (s_->unnamed_) return publish_unnamed(kind == io_detail::output_kind::new_file && !s_->force_);
    if (::close(std::exchange(s_->fd_, -1)) != 0) return io_fail(s_->name_, "write failed", errno);
    if (kind == io_detail::output_kind::new_file && !s_->force_) {
        if (auto renamed = io_detail::rename_no_replace(s_->temp_, s_->path_, s_->name_); !renamed) return renamed;
    } else if (::rename(s_->temp_.c_str(), s_->path_.c_str()) != 0) {
        return io_fail(s_->name_, "cannot rename the finished output into place", errno);
    }
    unregister_temp();
    s_->temp_.clear();
    if (s_->durable_) io_detail::sync_folder(s_->path_);
    return {};
}

// An unnamed output gets its name by a link: straight under the output's name
// when nothing may be replaced (the link fails if a file appeared meanwhile), else
// under a temporary name renamed over the old file.
result<void> output_file::publish_unnamed(bool no_replace) {
    if (no_replace) {
        if (auto linked = io_detail::link_unnamed(s_->fd_, s_->path_, s_->name_); !linked) return linked;
    } else {
        const auto slash = s_->path_.rfind('/');
        const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : s_->path_.substr(0, slash);
        const std::string base = slash == std::string::npos ? s_->path_ : s_->path_.substr(slash + 1);
        if (auto linked = io_detail::link_unnamed_beside(s_->fd_, folder, base, s_->name_, s_->temp_); !linked)
            return linked;
        register_temp(s_->temp_);
        if (::rename(s_->temp_.c_str(), s_->path_.c_str()) != 0)
            return io_fail(s_->name_, "cannot rename the finished output into place",
                           errno);  // discard() unlinks s_->temp_
        unregister_temp();
        s_->temp_.clear();
    }
    if (::close(std::exchange(s_->fd_, -1)) != 0) return io_fail(s_->name_, "write failed", errno);
    if (s_->durable_) io_detail::sync_folder(s_->path_);
    return {};
}

// The one step that overwrites the user's file and cannot be atomic: signals wait
// until it is done, and if it fails the staging file, which holds the complete new
// content, is kept and named in the error.
result<void> output_file::rewrite_inode() {
    if (auto room = io_detail::reserve_for_copy(s_->fd_, s_->target_fd_, s_->pos_, s_->name_); !room) return room;
    // The staging file says whose it is (flushed with it), so a note naming it is believed.
    struct stat st {};
    const bool tagged =
        ::fstat(s_->target_fd_, &st) == 0 && io_detail::tag_staging_file(s_->fd_, static_cast<std::uint64_t>(st.st_dev),
                                                                         static_cast<std::uint64_t>(st.st_ino));
    if (s_->durable_ && ::fsync(s_->fd_) != 0) return io_fail(s_->name_, "cannot flush the output to disk", errno);
    // From naming the staging file to the end of the copy, a signal waits: stopped
    // in between, the run would leave the staging file behind.
    io_detail::signal_deferral no_stop_halfway;
    if (s_->unnamed_) {
        const auto slash = s_->path_.rfind('/');
        const std::string base = slash == std::string::npos ? s_->path_ : s_->path_.substr(slash + 1);
        if (auto named = io_detail::link_unnamed_beside(s_->fd_, s_->staging_folder_, base, s_->name_, s_->temp_);
            !named)
            return named;
    }
    // Under the name recovery looks for (replacing what an interrupted run left).
    const bool findable = io_detail::take_pending_name(s_->temp_, s_->pending_);
    if (s_->durable_) io_detail::sync_folder(s_->temp_);
    // Under any of its names, the file now says where its new content waits.
    if (tagged)
        io_detail::set_update_marker(s_->target_fd_, static_cast<std::uint64_t>(st.st_dev),
                                     static_cast<std::uint64_t>(st.st_ino), io_detail::update_kind::rewrite, s_->temp_,
                                     s_->durable_);
    unregister_temp();
    auto copied = io_detail::copy_into_inode(s_->fd_, s_->target_fd_, s_->pos_, s_->durable_, s_->name_);
    // The staging file is deleted below: the copy must have reached the disk first.
    if (copied && !s_->durable_ && ::fsync(s_->target_fd_) != 0) copied = io_fail(s_->name_, "write failed", errno);
    if (!copied) {
        const std::string kept = std::exchange(s_->temp_, "");
        const std::string message =
            copied.err().message + "; the file is partly rewritten, its complete new content is kept in " + kept;
        if (findable) return fail(copied.err().code, message, remedy::recover, s_->name_);
        return fail(copied.err().code, message + " (copy it over the file)");
    }
    // The staging file goes before the note: killed in between, the note names a
    // file that is gone, which counts as none, and no name of the file is refused.
    ::unlink(s_->temp_.c_str());
    if (s_->durable_) io_detail::sync_folder(s_->temp_);
    s_->temp_.clear();
    io_detail::clear_update_marker(s_->target_fd_);  // whole (and synced when durable)
    if (::close(std::exchange(s_->target_fd_, -1)) != 0) return io_fail(s_->name_, "write failed", errno);
    return {};
}

}  // namespace rdelta
