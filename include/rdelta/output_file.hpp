// rdelta/output_file.hpp - outputs published safely: a temporary file named only on success,
// never replacing what the caller did not name.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/basis_reader.hpp>
#include <rdelta/byte_sink.hpp>
#include <rdelta/error.hpp>
#include <rdelta/input_file.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

struct stat;  // <sys/stat.h>, named by a private member only

namespace rdelta {

/// An output, published so that a failed or interrupted run never leaves a
/// partial output and never harms a file the caller did not name:
/// - "-", /dev/stdout, /dev/fd/N, /proc/PID/fd/N, devices, FIFOs and terminals are
///   streams written directly;
/// - symlinks are followed: the file they name is what gets written;
/// - a new output is written to a temporary file beside it (unnamed, O_TMPFILE,
///   where the filesystem allows: a killed process leaves nothing; elsewhere
///   `.NAME.rdelta-XXXXXX`, locked while written, and the ones dead runs left for
///   the same name are removed first), flushed to disk, and named by a link or
///   rename that cannot replace: a file that appeared meanwhile is kept and the
///   command fails (file exists);
/// - an existing file (`force`) is replaced by a rename that keeps its owner, group,
///   permission bits (never setuid or setgid), ACLs and extended attributes; when a
///   rename would lose something (other hard links, an owner only root could give,
///   a folder the caller cannot write) the complete output is instead copied into
///   the existing file, so every link sees it. That copy is not atomic: space for
///   it is allocated first (a full disk fails with the file unchanged), the cleanup
///   signals wait until it is done, and if it fails or the process dies during it,
///   the staging file keeps the complete output (it is named only once complete:
///   `.NAME.rdelta-rewrite` beside the file, or `.rdelta-rewrite-DEV-INO` in
///   $TMPDIR when that folder is not writable); the error names it, and
///   finish_interrupted_rewrite() completes the rewrite. While it is being
///   rewritten the file is locked (flock), as an in-place patch locks its image,
///   and names the staging file in its `user.rdelta.unfinished` attribute.
/// Destroyed without commit(), it removes its temporary file.
class RDELTA_API output_file {
public:
    /// Check, creating nothing, that `path` may be written: an existing path needs
    /// `force`, and the caller must be allowed to write it. Errors are io_error.
    static result<void> check(const std::string& path, bool force);
    /// Start writing `path` ("-" = standard output): open the stream, or create the
    /// temporary file. `force` allows replacing a file that exists at commit().
    static result<output_file> create(const std::string& path, bool force = false);
    output_file(output_file&& other) noexcept;
    output_file& operator=(output_file&&) = delete;
    ~output_file();

    result<void> write(std::span<const std::uint8_t> bytes);
    /// A byte_sink calling write(), valid while this object lives.
    byte_sink sink();
    /// Append `len` bytes of the file open as `from_fd`, from its offset `from`,
    /// copied inside the kernel (copy_file_range), if `at` is the output's current
    /// length. A sparse output keeps the source's holes. Returns the bytes appended:
    /// fewer where the source ends, 0 for a stream or when the kernel cannot copy
    /// between the two files (then write() the bytes).
    result<std::uint64_t> append_copy(int from_fd, std::uint64_t from, std::uint64_t len, std::uint64_t at);
    /// Make the output visible under its name (see the class comment); with
    /// durability on (set_durable), the data reaches the disk first.
    result<void> commit();
    /// Write aligned 4 KiB runs of zeros as holes (files only, not streams).
    void set_sparse(bool on) noexcept;
    /// Push written data out of the page cache as it goes (--nocache).
    void set_nocache(bool on) noexcept;
    /// fsync the file before publishing it and its folder after (off by default,
    /// as in rdiff and cp; a backup that must survive a power cut turns it on).
    void set_durable(bool on) noexcept;
    const std::string& name() const noexcept;
    /// Whether what was written can be read back before commit() (not a stream).
    bool can_read_back() const noexcept;
    /// Whether append_copy() into this output may share extents with its source
    /// instead of copying bytes: the filesystem has reflinks or server-side copy
    /// (XFS, btrfs, bcachefs, OCFS2, ZFS, NFS, SMB). Elsewhere (ext4, tmpfs, ...)
    /// the kernel copies page by page, which costs about what write() does.
    bool copy_may_share_extents() const noexcept;
    /// Whether writing this output would change what is read from the open file
    /// `fd`: a stream written directly (a device, /dev/fd/N, standard output) that
    /// is that file or device, or storage under or over it (a partition and its
    /// disk, a device-mapper, md or loop device and what it is built on). Such an
    /// output destroys data still to be read: check every input before writing.
    /// Files are written to a new inode (or rewritten once complete): never true.
    bool overwrites(int fd) const;
    /// Read back what was written (can_read_back() only), as a basis_reader does.
    result<std::size_t> read_back(std::uint64_t pos, std::span<std::uint8_t> out) const;
    bool hole_in_written(std::uint64_t pos, std::uint64_t len) const;
    /// Extended attributes of a replaced file that could not be carried over
    /// (the filesystem or the caller's rights refused them); "" when none.
    const std::string& warning() const noexcept;

private:
    output_file();
    static result<output_file> create_rewrite(output_file out, const std::string& folder, const std::string& base,
                                              const struct stat& st);
    result<void> rewrite_inode();
    result<void> publish_unnamed(bool no_replace);
    void discard() noexcept;
    result<void> write_all(std::span<const std::uint8_t> bytes);
    result<void> publish();
    void drop_written_pages(bool final);
    void start_writeback();
    struct state;  // its descriptors, names and positions (src/file/output_file_state.hpp)
    std::unique_ptr<state> s_;
};

/// patch_options::copy_direct for a patch from `basis` into `out` (both must
/// outlive the job): COPY runs are copied file to file inside the kernel, where the
/// filesystem may share extents (reflinks on XFS and btrfs). Use it with take_trailer.
RDELTA_API std::function<result<std::uint64_t>(std::uint64_t, std::uint64_t, std::uint64_t)> direct_file_copy(
    file_basis& basis, output_file& out);

/// An output being written, read back before it is committed (to check it).
class RDELTA_API written_output final : public basis_reader {
public:
    explicit written_output(const output_file& out) : out_(out) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        return out_.read_back(pos, out);
    }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override { return out_.hole_in_written(pos, len); }

private:
    const output_file& out_;
};

}  // namespace rdelta
