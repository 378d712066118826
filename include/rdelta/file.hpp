// rdelta/file.hpp - the POSIX file layer: inputs read in full chunks (holes found
// with SEEK_DATA), a random-access basis, outputs published safely (a temporary
// file renamed into place only on success), and a file patched in place.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/error.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/io.hpp>
#include <rdelta/patch.hpp>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdelta {

/// "-" names the standard stream (the command maps a missing name to "-").
inline bool is_std_stream(const std::string& path) { return path == "-"; }

/// An input file or standard input.
class input_file final : public byte_source {
public:
    /// Open for reading; errors name the file. `path` "-" = stdin.
    static result<input_file> open(const std::string& path);
    input_file(input_file&& other) noexcept;
    ~input_file() override;

    /// Read until `n` bytes or end of file; returns the count (0 at end).
    result<std::size_t> read_full(std::uint8_t* p, std::size_t n) override;
    /// Size of a regular file or block device, -1 for anything else (pipes).
    std::int64_t regular_size() const noexcept { return regular_size_; }
    std::int64_t size_hint() const noexcept override { return regular_size_; }
    /// Drop data from the page cache once it has been read (--nocache).
    void set_nocache(bool on) noexcept { nocache_ = on; }
    bool nocache() const noexcept { return nocache_; }
    const std::string& name() const noexcept override { return name_; }
    int fd() const noexcept { return fd_; }

private:
    input_file(int fd, std::string name, std::int64_t size) : fd_(fd), name_(std::move(name)), regular_size_(size) {}
    int fd_ = -1;
    std::string name_;
    std::int64_t regular_size_ = -1;
    std::int64_t read_pos_ = 0;
    std::int64_t dropped_to_ = 0;
    bool nocache_ = false;
};

/// The basis of a patch, read with pread().
class file_basis final : public basis_reader {
public:
    explicit file_basis(const input_file& file);
    ~file_basis() override;
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> size() const override;
    bool is_hole(std::uint64_t pos, std::uint64_t len) override;

private:
    void drop_behind(std::uint64_t end) noexcept;
    int fd_;
    std::string name_;
    std::int64_t size_;
    bool nocache_;
    std::atomic<std::uint64_t> dropped_to_{0};  // --nocache: pages before this were dropped
};

/// An output: standard output, a device written in place, or a temporary file in
/// the destination's folder renamed over it by commit(). Destroyed without
/// commit(), it removes the temporary file, leaving the destination untouched.
class output_file {
public:
    /// Check (without creating anything) that `path` may be written:
    /// an existing path needs `force`. Errors are io_error, as rdiff's.
    static result<void> check(const std::string& path, bool force);
    /// Create the temporary file (or open stdout / the device).
    static result<output_file> create(const std::string& path);
    output_file(output_file&& other) noexcept;
    ~output_file();

    result<void> write(const std::uint8_t* p, std::size_t n);
    /// Make the output visible under its name.
    result<void> commit();
    /// Write aligned 4 KiB runs of zeros as holes (regular files only).
    void set_sparse(bool on) noexcept { sparse_ = on && !temp_.empty(); }
    /// Push written data out of the page cache as it goes (--nocache).
    void set_nocache(bool on) noexcept { nocache_ = on && !temp_.empty(); }
    const std::string& name() const noexcept { return name_; }
    /// Whether what was written can be read back before commit() (a regular file).
    bool can_read_back() const noexcept { return !temp_.empty(); }
    /// Read back what was written (can_read_back() only), as a basis_reader does.
    result<std::size_t> read_back(std::uint64_t pos, std::span<std::uint8_t> out) const;
    bool hole_in_written(std::uint64_t pos, std::uint64_t len) const;

private:
    output_file(int fd, std::string path, std::string temp) : fd_(fd), path_(std::move(path)), temp_(std::move(temp)) {
        name_ = path_ == "-" ? "standard output" : path_;
    }
    void discard() noexcept;
    result<void> write_all(const std::uint8_t* p, std::size_t n);
    void drop_written_pages(bool final);
    int fd_ = -1;
    std::string path_, temp_, name_;
    std::uint64_t pos_ = 0;          // bytes of output so far (holes included)
    std::uint64_t dropped_to_ = 0;   // --nocache: pages before this were dropped
    bool sparse_ = false, nocache_ = false;
};

/// An output being written, read back before it is committed (to check it).
class written_output final : public basis_reader {
public:
    explicit written_output(const output_file& out) : out_(out) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override { return out_.read_back(pos, out); }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override { return out_.hole_in_written(pos, len); }

private:
    const output_file& out_;
};

/// A file opened for reading and writing, patched in place.
class in_place_fd final : public in_place_file {
public:
    static result<in_place_fd> open(const std::string& path);
    in_place_fd(in_place_fd&& other) noexcept;
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
    const std::string& name() const noexcept { return name_; }
    /// Take an exclusive flock() on the file, held until it is closed: two in-place
    /// patches (or a patch and a recovery) of one image must never overlap.
    result<void> lock();

private:
    in_place_fd(int fd, std::string name, std::uint64_t size) : fd_(fd), name_(std::move(name)), size_(size) {}
    int fd_ = -1;
    std::string name_;
    std::uint64_t size_ = 0;
    std::uint64_t dev_ = 0, ino_ = 0;
};

/// The whole content of an input (a file, standard input, a decompressor), for
/// deltas applied in place.
result<std::vector<std::uint8_t>> read_whole(byte_source& in);

/// Remove pending temporary files when SIGINT, SIGTERM, SIGHUP or SIGPIPE arrives.
void install_cleanup_handlers();

}  // namespace rdelta
