// rdelta/file.hpp - the POSIX file layer: inputs read in full chunks (holes found
// with SEEK_DATA), a random-access basis, outputs published safely (a temporary
// file renamed into place only on success), and a file patched in place.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/error.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/io.hpp>
#include <rdelta/manifest.hpp>
#include <rdelta/patch.hpp>

#include <sys/stat.h>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rdelta {

/// "-" names the standard stream (the command maps a missing name to "-").
inline bool is_std_stream(const std::string& path) {
    return path == "-";
}

/// An input file or standard input.
///
/// Standard input that is a regular file (`cmd - < file`, or a descriptor a
/// script has partly read) starts at the descriptor's current offset, as a stream
/// read would: regular_size() counts the bytes from there to the end, and
/// positional readers (file_basis) add start_offset() to their positions.
class input_file final : public byte_source {
public:
    /// Open for reading; errors name the file. `path` "-" = stdin. A regular file
    /// that an in-place patch or an inode rewrite is updating, or left half done
    /// (its journal or staging file is beside it, or the file names one in its
    /// `user.rdelta.unfinished` attribute, under any of its names), is refused
    /// (io_error, naming `rdelta recover`): it is neither the old file nor the new one.
    static result<input_file> open(const std::string& path);
    input_file(input_file&& other) noexcept;
    ~input_file() override;

    /// Read until `n` bytes or end of file; returns the count (0 at end).
    result<std::size_t> read_full(std::uint8_t* p, std::size_t n) override;
    /// Bytes from start_offset() to the end of a regular file or block device, -1
    /// for anything else (pipes).
    std::int64_t regular_size() const noexcept { return regular_size_; }
    std::int64_t size_hint() const noexcept override { return regular_size_; }
    /// Where the input starts in its file: 0, or standard input's offset at open().
    std::int64_t start_offset() const noexcept { return start_; }
    /// The whole file's size, start_offset() included (-1 as regular_size()). rdiff
    /// picks default signature parameters from it, even for a partly read stdin.
    std::int64_t whole_size() const noexcept { return regular_size_ < 0 ? -1 : start_ + regular_size_; }
    /// After positional reads: leave the descriptor's offset where reading `n` bytes
    /// as a stream would have left it (a shared stdin's next reader continues there).
    void seek_past(std::uint64_t n) noexcept;
    /// Drop data from the page cache once it has been read (--nocache).
    void set_nocache(bool on) noexcept { nocache_ = on; }
    bool nocache() const noexcept { return nocache_; }
    const std::string& name() const noexcept override { return name_; }
    int fd() const noexcept { return fd_; }
    /// Fail (io_error) when the regular file was written while it was read: its
    /// modification time or size moved since open(). What was read then mixes old
    /// and new data: a signature of it describes no version of the file, a patch
    /// from it builds none. Check before publishing an output made from it.
    /// Streams and devices carry no such mark and always pass.
    result<void> check_unchanged() const;

private:
    input_file(int fd, std::string name, std::int64_t size, std::int64_t start)
        : fd_(fd), name_(std::move(name)), regular_size_(size), start_(start), read_pos_(start), dropped_to_(start) {}
    void remember_version(const struct stat& st) noexcept;
    int fd_ = -1;
    std::string name_;
    std::int64_t regular_size_ = -1;
    std::int64_t start_ = 0;
    std::int64_t read_pos_ = 0;
    std::int64_t dropped_to_ = 0;
    bool nocache_ = false;
    bool regular_ = false;  // the fields below describe the file at open()
    std::int64_t opened_size_ = 0, opened_mtime_s_ = 0, opened_mtime_ns_ = 0;
};

class output_file;

/// The basis of a patch (or a new file read at random), read with pread().
class file_basis final : public basis_reader {
public:
    /// Where position 0 lies: at the input's start (a partly read stdin reads on
    /// from its offset), or at the start of the file (a patch basis: rdiff seeks to
    /// absolute positions, whatever was read from its stdin before).
    enum class origin { input_start, file_start };
    explicit file_basis(const input_file& file, origin from = origin::input_start);
    ~file_basis() override;
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> size() const override;
    bool is_hole(std::uint64_t pos, std::uint64_t len) override;

private:
    friend std::function<result<std::uint64_t>(std::uint64_t, std::uint64_t, std::uint64_t)> direct_file_copy(
        file_basis& basis, output_file& out);
    void drop_behind(std::uint64_t end) noexcept;
    int fd_;
    std::string name_;
    std::int64_t size_;
    std::uint64_t offset_;  // file position of the basis's position 0
    bool nocache_;
    std::atomic<std::uint64_t> dropped_to_{0};  // --nocache: pages before this were dropped
};

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
class output_file {
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

    result<void> write(const std::uint8_t* p, std::size_t n);
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
    result<void> write_all(const std::uint8_t* p, std::size_t n);
    result<void> publish();
    void drop_written_pages(bool final);
    void start_writeback();
    struct state;  // its descriptors, names and positions (src/io/output_file_state.hpp)
    std::unique_ptr<state> s_;
};

/// patch_options::copy_direct for a patch from `basis` into `out` (both must
/// outlive the job): COPY runs are copied file to file inside the kernel, where the
/// filesystem may share extents (reflinks on XFS and btrfs). Use it with take_trailer.
std::function<result<std::uint64_t>(std::uint64_t, std::uint64_t, std::uint64_t)> direct_file_copy(file_basis& basis,
                                                                                                   output_file& out);

/// An output being written, read back before it is committed (to check it).
class written_output final : public basis_reader {
public:
    explicit written_output(const output_file& out) : out_(out) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        return out_.read_back(pos, out);
    }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override { return out_.hole_in_written(pos, len); }

private:
    const output_file& out_;
};

/// A file opened for reading and writing, patched in place.
class in_place_fd final : public in_place_file {
public:
    /// Open `path` once: its name is walked one component at a time (symlinks
    /// are followed only when owned by root, the caller or the file's owner) and
    /// its folder is kept open, so the journal and staging file beside it are found
    /// through that folder and every write goes to this very file, whatever
    /// happens to the names meanwhile. Refuses (io_error) a file that an in-place
    /// patch without a journal is patching, or left torn when it was interrupted
    /// (nothing can restore it).
    static result<in_place_fd> open(const std::string& path);
    in_place_fd(in_place_fd&& other) noexcept;
    in_place_fd& operator=(in_place_fd&&) = delete;
    ~in_place_fd() override;
    std::uint64_t size() const override { return size_; }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) override;
    result<void> resize(std::uint64_t size) override;
    bool is_hole(std::uint64_t pos, std::uint64_t len) override;
    std::pair<bool, std::uint64_t> extent(std::uint64_t pos, std::uint64_t limit) override;
    /// fallocate(PUNCH_HOLE | KEEP_SIZE); zeros where the file system cannot.
    result<void> punch_hole(std::uint64_t pos, std::uint64_t len) override;
    result<void> sync() override;
    std::pair<std::uint64_t, std::uint64_t> identity() const override { return {dev_, ino_}; }
    std::pair<std::int64_t, std::int64_t> change_time() override;
    /// An extended attribute, `user.rdelta.unfinished` (nothing where the file
    /// system keeps none).
    void mark_journaled(const std::string& journal) override;
    void clear_journal_mark() override;
    /// The extended attribute `user.rdelta.applied`; where the file system keeps
    /// no user attributes, can_remember_applied() is false.
    bool can_remember_applied() override;
    result<void> remember_applied(const applied_delta& delta) override;
    std::optional<applied_delta> last_applied() override;
    void settle_applied() override;
    void forget_applied() override;
    const std::string& name() const noexcept { return name_; }
    /// Take an exclusive flock() on the file, held until it is closed: two in-place
    /// patches (or a patch and a recovery) of one image must never overlap.
    result<void> lock();

private:
    friend result<std::unique_ptr<journal_storage>> open_journal_file(const in_place_fd& image);
    friend result<std::string> finish_interrupted_rewrite(in_place_fd& image);
    friend result<std::unique_ptr<manifest_storage>> open_manifest_file(const in_place_fd& image);
    in_place_fd() = default;
    int fd_ = -1;
    int folder_ = -1;  // the folder the file was opened in
    std::string name_, base_, folder_name_;
    std::uint64_t size_ = 0;
    std::uint64_t dev_ = 0, ino_ = 0;
    struct stat st_ {};  // at open
};

/// Finish a rewrite of `path` (see output_file) that was cut short: when its
/// staging file is there (the one the file names in its `user.rdelta.unfinished`
/// attribute, so `path` may be any of its names, else `.NAME.rdelta-rewrite` beside
/// the file the name leads to, or `.rdelta-rewrite-DEV-INO` in $TMPDIR, or /tmp),
/// copy it into the file,
/// fsync the file and delete it. Returns the staging file's name, or "" when there
/// is none. A staging file is followed only when it is a regular file with one
/// link, owned by the caller, the file's owner or root, writable by its owner
/// alone, and tagged for this very file (device and inode, where its file system
/// keeps user attributes); otherwise it is refused and both are left alone
/// (io_error), as is a file another rdelta holds locked.
result<std::string> finish_interrupted_rewrite(const std::string& path);
/// The same through an image already open (and locked by the caller).
result<std::string> finish_interrupted_rewrite(in_place_fd& image);

/// The whole content of an input (a file, standard input, a decompressor), for
/// deltas applied in place.
result<std::vector<std::uint8_t>> read_whole(byte_source& in);

/// Remove the pending temporary output, then die of the same signal, when SIGINT,
/// SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM, SIGXFSZ, SIGUSR1 or SIGUSR2 arrives.
/// A signal whose disposition is SIG_IGN (inherited from nohup, `trap '' PIPE`)
/// stays ignored.
void install_cleanup_handlers();

/// Open /dev/null on each of descriptors 0, 1 and 2 that is closed, so that no file
/// opened later takes one of their numbers (an output on fd 2 would receive the
/// messages meant for standard error). A closed 0 or 1 stays unusable: reading
/// fd 0 or writing fd 1 then fails with EBADF, as on the closed descriptor (fd 0
/// is opened write-only, fd 1 read-only); fd 2 is writable. Call first thing in
/// main(); returns false when one could not be opened.
bool ensure_standard_fds_open() noexcept;

}  // namespace rdelta
