// rdelta/input_file.hpp - inputs: a file or standard input read in full chunks (holes found
// with SEEK_DATA), and a random-access basis read with pread().
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/basis_reader.hpp>
#include <rdelta/error.hpp>
#include <rdelta/io.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace rdelta {

/// "-" names the standard stream (the command maps a missing name to "-").
inline bool is_std_stream(const std::string& path) {
    return path == "-";
}

/// An input file or standard input.
///
/// Standard input that is a regular file (`cmd - < file`, or a descriptor a
/// script has partly read) starts at the descriptor's current offset, as a stream
/// read would: size() counts the bytes from there to the end, and
/// positional readers (file_basis) add start_offset() to their positions.
class RDELTA_API input_file final : public byte_source {
public:
    /// Open for reading; errors name the file. `path` "-" = stdin. A regular file
    /// that an in-place patch or an inode rewrite is updating, or left half done
    /// (its journal or staging file is beside it, or the file names one in its
    /// `user.rdelta.unfinished` attribute, under any of its names), is refused
    /// (io_error, naming `rdelta recover`): it is neither the old file nor the new one.
    static result<input_file> open(const std::string& path);
    input_file(input_file&& other) noexcept;
    ~input_file() override;

    /// Fill `out` until it is full or the file ends; returns the count (0 at end).
    result<std::size_t> read_full(std::span<std::uint8_t> out) override;
    /// Bytes from start_offset() to the end of a regular file or block device;
    /// none for anything else (pipes).
    std::optional<std::uint64_t> size() const noexcept override;
    /// Where the input starts in its file: 0, or standard input's offset at open().
    std::int64_t start_offset() const noexcept;
    /// The whole file's size, start_offset() included (none as size()). rdiff
    /// picks default signature parameters from it, even for a partly read stdin.
    std::optional<std::uint64_t> whole_size() const noexcept;
    /// After positional reads: leave the descriptor's offset where reading `n` bytes
    /// as a stream would have left it (a shared stdin's next reader continues there).
    void seek_past(std::uint64_t n) noexcept;
    /// Drop data from the page cache once it has been read (--nocache).
    void set_nocache(bool on) noexcept;
    bool nocache() const noexcept;
    const std::string& name() const noexcept override;
    int fd() const noexcept;
    /// Fail (io_error) when the regular file was written while it was read: its
    /// modification time or size moved since open(). What was read then mixes old
    /// and new data: a signature of it describes no version of the file, a patch
    /// from it builds none. Check before publishing an output made from it.
    /// Streams and devices carry no such mark and always pass.
    result<void> check_unchanged() const;

private:
    struct state;  // its descriptor, name, offsets and the file's version at open()
    explicit input_file(std::unique_ptr<state> s) noexcept;
    std::unique_ptr<state> s_;
};

class output_file;

/// The basis of a patch (or a new file read at random), read with pread().
class RDELTA_API file_basis final : public basis_reader {
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
    std::optional<std::uint64_t> size_;
    std::uint64_t offset_;  // file position of the basis's position 0
    bool nocache_;
    std::atomic<std::uint64_t> dropped_to_{0};  // --nocache: pages before this were dropped
};

}  // namespace rdelta
