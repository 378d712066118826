// command_stream.hpp - decoding the commands of a delta read as a stream, with the
// same checks and messages as command_reader (which needs the delta in memory).
//
// Memory is one input buffer whatever the delta size: a LITERAL is announced by
// next() with its length and then consumed in pieces with literal_piece(), so a
// 2 GiB literal never needs 2 GiB of memory.
#pragma once

#include "command_reader.hpp"

#include <rdelta/io.hpp>

#include <memory>
#include <vector>

namespace rdelta::detail {

class command_stream {
public:
    /// `in` must outlive the stream.
    explicit command_stream(byte_source& in, std::size_t buffer_bytes = std::size_t{1} << 20);

    /// Check the magic; call once before next().
    result<void> start();
    /// The next command (END included). For a LITERAL, `data` is null: its bytes
    /// follow and must be taken with literal_piece() (or skipped) before next().
    result<delta_command> next();
    /// Up to `max` bytes of the current LITERAL's data (at least one while some remain);
    /// the span stays valid until the next call.
    result<std::span<const std::uint8_t>> literal_piece(std::size_t max);
    /// Bytes of the current LITERAL not taken yet.
    std::uint64_t literal_left() const noexcept { return literal_left_; }
    /// Up to `n` bytes after END (fewer when the delta ends first).
    result<std::vector<std::uint8_t>> after_end(std::size_t n);
    /// Delta bytes decoded so far (commands and literal data).
    std::uint64_t consumed() const noexcept { return at_; }
    const std::string& name() const noexcept { return in_.name(); }

private:
    result<void> fill(std::size_t need);
    error fail_at(errc code, const char* what) const { return fail(code, name() + ": " + what); }

    byte_source& in_;
    std::unique_ptr<std::uint8_t[]> buf_;  // not zeroed: a pass costs no 1 MiB memset
    std::size_t cap_;
    std::size_t lo_ = 0, hi_ = 0;  // unread bytes are buf_[lo_, hi_)
    bool eof_ = false;
    std::uint64_t at_ = 0;  // offset in the delta of buf_[lo_]
    std::uint64_t literal_left_ = 0;
};

}  // namespace rdelta::detail
