// command_stream.cpp - the streaming delta command decoder.
#include "command_stream.hpp"

#include <algorithm>
#include <cstring>

namespace rdelta::detail {

command_stream::command_stream(byte_source& in, std::size_t buffer_bytes)
    : in_(in), cap_(std::max<std::size_t>(buffer_bytes, 64)) {
    // A small delta needs no large buffer (+17: the longest command, to see the end).
    if (in.size_hint() >= 0) cap_ = std::max<std::size_t>(std::min<std::uint64_t>(cap_, static_cast<std::uint64_t>(in.size_hint()) + 17), 64);
    buf_ = std::make_unique_for_overwrite<std::uint8_t[]>(cap_);
}

// Make at least `need` unread bytes available unless the input ends first.
result<void> command_stream::fill(std::size_t need) {
    if (hi_ - lo_ >= need || eof_) return {};
    if (lo_ > 0) {
        std::memmove(buf_.get(), buf_.get() + lo_, hi_ - lo_);
        hi_ -= lo_, lo_ = 0;
    }
    while (hi_ < need && !eof_) {
        auto got = in_.read_full(buf_.get() + hi_, cap_ - hi_);
        if (!got) return std::move(got).err();
        eof_ = *got < cap_ - hi_;
        hi_ += *got;
    }
    return {};
}

result<void> command_stream::start() {
    if (auto f = fill(4); !f) return f;
    if (hi_ - lo_ < 4) return fail_at(errc::input_ended, "delta is truncated inside its 4-byte magic");
    const std::uint32_t m = get_be32(buf_.get() + lo_);
    if (m != static_cast<std::uint32_t>(magic::delta)) {
        char text[120];
        std::snprintf(text, sizeof text, "bad magic %#x, expected %#x: not a delta", m,
                      static_cast<std::uint32_t>(magic::delta));
        return fail_at(errc::bad_magic, text);
    }
    lo_ += 4, at_ += 4;
    return {};
}

result<delta_command> command_stream::next() {
    // Literal data the caller did not take is skipped.
    while (literal_left_ > 0) {
        auto piece = literal_piece(cap_);
        if (!piece) return std::move(piece).err();
    }
    char text[200];
    if (auto f = fill(17); !f) return std::move(f).err();  // the longest command: 1 + 8 + 8
    if (lo_ == hi_) return fail_at(errc::input_ended, "delta is truncated before the END command");
    const std::uint8_t* p = buf_.get() + lo_;
    const std::uint8_t opcode = p[0];
    const auto& op = opcode_table()[opcode];
    delta_command c{op.kind, at_};
    if (op.kind == cmd_kind::reserved) {
        std::snprintf(text, sizeof text, "unknown command byte %#04x at offset %" PRIu64, opcode, c.offset);
        return fail_at(errc::corrupt, text);
    }
    const std::size_t size = 1u + op.width1 + op.width2;
    if (hi_ - lo_ < size) return fail_at(errc::input_ended, "delta is truncated inside a command");
    const auto p1 = static_cast<std::int64_t>(op.width1 ? get_be(p + 1, op.width1) : 0);
    const auto p2 = static_cast<std::int64_t>(op.width2 ? get_be(p + 1 + op.width1, op.width2) : 0);
    lo_ += size, at_ += size;
    if (op.kind == cmd_kind::literal) {
        const std::int64_t len = op.immediate ? op.immediate : p1;
        if (len <= 0) {
            std::snprintf(text, sizeof text, "LITERAL at offset %" PRIu64 " has invalid length %" PRId64, c.offset, len);
            return fail_at(errc::corrupt, text);
        }
        c.len = literal_left_ = static_cast<std::uint64_t>(len);
    } else if (op.kind == cmd_kind::copy) {
        if (p2 <= 0 || p1 < 0) {
            std::snprintf(text, sizeof text, "COPY at offset %" PRIu64 " has invalid %s %" PRId64, c.offset,
                          p2 <= 0 ? "length" : "position", p2 <= 0 ? p2 : p1);
            return fail_at(errc::corrupt, text);
        }
        c.pos = static_cast<std::uint64_t>(p1), c.len = static_cast<std::uint64_t>(p2);
    }
    return c;
}

result<std::span<const std::uint8_t>> command_stream::literal_piece(std::size_t max) {
    if (literal_left_ == 0 || max == 0) return std::span<const std::uint8_t>{};
    if (lo_ == hi_) {
        if (auto f = fill(1); !f) return std::move(f).err();
        if (lo_ == hi_) return fail_at(errc::input_ended, "delta is truncated inside LITERAL data");
    }
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>({literal_left_, max, hi_ - lo_}));
    const std::span<const std::uint8_t> piece(buf_.get() + lo_, n);
    lo_ += n, at_ += n, literal_left_ -= n;
    return piece;
}

result<std::vector<std::uint8_t>> command_stream::after_end(std::size_t n) {
    if (auto f = fill(std::min(n, cap_)); !f) return std::move(f).err();
    const std::size_t k = std::min(n, hi_ - lo_);
    return std::vector<std::uint8_t>(buf_.get() + lo_, buf_.get() + lo_ + k);
}

}  // namespace rdelta::detail
