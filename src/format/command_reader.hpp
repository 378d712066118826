// command_reader.hpp - decoding the commands of a delta held in memory, with the
// same checks and error codes as the streaming patch job.
#pragma once

#include "netint.hpp"
#include "opcodes.hpp"

#include <rdelta/error.hpp>
#include <rdelta/format.hpp>

#include <cinttypes>
#include <cstdio>
#include <optional>
#include <span>
#include <string>

namespace rdelta::detail {

/// One decoded command; `data` points into the delta for literals.
struct delta_command {
    cmd_kind kind = cmd_kind::end;
    std::uint64_t offset = 0;  ///< where the command starts in the delta
    std::uint64_t pos = 0;     ///< COPY: basis offset
    std::uint64_t len = 0;     ///< LITERAL or COPY length
    const std::uint8_t* data = nullptr;
};

class command_reader {
public:
    command_reader(std::span<const std::uint8_t> delta, std::string name) : d_(delta), name_(std::move(name)) {}

    /// Check the magic; call once before next().
    result<void> start() {
        if (d_.size() < 4) return fail_at(errc::input_ended, "delta is truncated inside its 4-byte magic");
        const std::uint32_t m = get_be32(d_.data());
        if (m != static_cast<std::uint32_t>(magic::delta)) {
            char text[120];
            std::snprintf(text, sizeof text, "bad magic %#x, expected %#x: not a delta", m,
                          static_cast<std::uint32_t>(magic::delta));
            return fail_at(errc::bad_magic, text);
        }
        at_ = 4;
        return {};
    }

    /// The next command (END included); errors as the patch job reports them.
    result<delta_command> next() {
        char text[200];
        if (at_ >= d_.size()) return fail_at(errc::input_ended, "delta is truncated before the END command");
        const std::uint8_t opcode = d_[at_];
        const auto& op = opcode_table()[opcode];
        delta_command c{op.kind, at_};
        if (op.kind == cmd_kind::reserved) {
            std::snprintf(text, sizeof text, "unknown command byte %#04x at offset %" PRIu64, opcode, c.offset);
            return fail_at(errc::corrupt, text);
        }
        if (d_.size() - at_ < 1u + op.width1 + op.width2) return fail_at(errc::input_ended, "delta is truncated inside a command");
        const auto p1 = static_cast<std::int64_t>(op.width1 ? get_be(&d_[at_ + 1], op.width1) : 0);
        const auto p2 = static_cast<std::int64_t>(op.width2 ? get_be(&d_[at_ + 1 + op.width1], op.width2) : 0);
        at_ += 1u + op.width1 + op.width2;
        if (op.kind == cmd_kind::literal) {
            const std::int64_t len = op.immediate ? op.immediate : p1;
            if (len <= 0) {
                std::snprintf(text, sizeof text, "LITERAL at offset %" PRIu64 " has invalid length %" PRId64, c.offset, len);
                return fail_at(errc::corrupt, text);
            }
            if (static_cast<std::uint64_t>(len) > d_.size() - at_) return fail_at(errc::input_ended, "delta is truncated inside LITERAL data");
            c.len = static_cast<std::uint64_t>(len), c.data = d_.data() + at_;
            at_ += c.len;
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
