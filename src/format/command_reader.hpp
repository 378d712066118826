// command_reader.hpp - the commands of a delta held in memory, decoded and checked
// by command_decoder as the patch job and command_stream decode them.
#pragma once

#include "command_decoder.hpp"

#include <rdelta/error.hpp>
#include <rdelta/format.hpp>

#include <cinttypes>
#include <cstdio>
#include <optional>
#include <span>
#include <string>

namespace rdelta::detail {

class command_reader {
public:
    command_reader(std::span<const std::uint8_t> delta, std::string name) : d_(delta), name_(std::move(name)) {}

    /// Check the magic; call once before next().
    result<void> start() {
        if (d_.size() < 4) return fail_at(errc::input_ended, "delta is truncated inside its 4-byte magic");
        if (auto ok = check_delta_magic(d_.data()); !ok) return fail_at(ok.err().code, ok.err().message.c_str());
        at_ = 4;
        return {};
    }

    /// The next command (END included); errors as the patch job reports them.
    result<delta_command> next() {
        if (at_ >= d_.size()) return fail_at(errc::input_ended, "delta is truncated before the END command");
        const std::size_t size = command_header_size(d_[at_]);
        if (opcode_table()[d_[at_]].kind != cmd_kind::reserved && d_.size() - at_ < size)
            return fail_at(errc::input_ended, "delta is truncated inside a command");
        auto c = decode_command(&d_[at_], at_);
        if (!c) return fail_at(c.err().code, c.err().message.c_str());
        at_ += size;
        if (c->kind == cmd_kind::literal) {
            if (c->len > d_.size() - at_) return fail_at(errc::input_ended, "delta is truncated inside LITERAL data");
            c->data = d_.data() + at_;
            at_ += c->len;
        }
        return c;
    }

    /// Bytes after the END command.
    std::span<const std::uint8_t> rest() const noexcept { return d_.subspan(at_); }
    const std::string& name() const noexcept { return name_; }

private:
    error fail_at(errc code, const char* what) const { return fail(code, name_ + ": " + what); }

    std::span<const std::uint8_t> d_;
    std::string name_;
    std::size_t at_ = 0;
};

}  // namespace rdelta::detail
