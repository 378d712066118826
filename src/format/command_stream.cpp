// command_stream.cpp - the commands of a delta read as a stream (command_decoder checks them).
#include "command_stream.hpp"

#include <algorithm>
#include <cstring>

namespace rdelta::detail {

command_stream::command_stream(byte_source& in, std::size_t buffer_bytes)
    : in_(in), cap_(std::max<std::size_t>(buffer_bytes, 64)) {
    // A small delta needs no large buffer (+17: the longest command, to see the end).
    if (const auto size = in.size(); size && *size < cap_ - 17)
        cap_ = std::max<std::size_t>(static_cast<std::size_t>(*size) + 17, 64);
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
        auto got = in_.read_full({buf_.get() + hi_, cap_ - hi_});
        if (!got) return std::move(got).err();
        eof_ = *got < cap_ - hi_;
        hi_ += *got;
    }
    return {};
}

result<void> command_stream::start() {
    if (auto f = fill(4); !f) return f;
    if (hi_ - lo_ < 4) return fail_at(errc::input_ended, "delta is truncated inside its 4-byte magic");
    if (auto ok = check_delta_magic(buf_.get() + lo_); !ok) return fail_at(ok.err().code, ok.err().message.c_str());
    lo_ += 4, at_ += 4;
    return {};
}

result<delta_command> command_stream::next() {
    // Literal data the caller did not take is skipped.
    while (literal_left_ > 0) {
        auto piece = literal_piece(cap_);
        if (!piece) return std::move(piece).err();
    }
    if (auto f = fill(17); !f) return std::move(f).err();  // the longest command: 1 + 8 + 8
    if (lo_ == hi_) return fail_at(errc::input_ended, "delta is truncated before the END command");
    const std::uint8_t* p = buf_.get() + lo_;
    const std::size_t size = command_header_size(p[0]);
    if (opcode_table()[p[0]].kind != cmd_kind::reserved && hi_ - lo_ < size)
        return fail_at(errc::input_ended, "delta is truncated inside a command");
    auto c = decode_command(p, at_);
    if (!c) return fail_at(c.err().code, c.err().message.c_str());
    lo_ += size, at_ += size;
    if (c->kind == cmd_kind::literal) literal_left_ = c->len;
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
