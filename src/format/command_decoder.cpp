// command_decoder.cpp - opcodes and parameters of a delta, checked (command_decoder.hpp).
#include "command_decoder.hpp"

#include "netint.hpp"
#include "opcodes.hpp"

#include <rdelta/format.hpp>

#include <cinttypes>
#include <cstdio>

namespace rdelta::detail {

result<void> check_delta_magic(const std::uint8_t* p) {
    const std::uint32_t m = get_be32(p);
    if (m == static_cast<std::uint32_t>(magic::delta)) return {};
    char text[120];
    std::snprintf(text, sizeof text, "bad magic %#x, expected %#x: not a delta%s", m,
                  static_cast<std::uint32_t>(magic::delta), format_of_magic(m) ? " (it is a signature)" : "");
    return fail(errc::bad_magic, text);
}

std::size_t command_header_size(std::uint8_t opcode) noexcept {
    const auto& op = opcode_table()[opcode];
    return 1u + op.width1 + op.width2;
}

result<delta_command> decode_command(const std::uint8_t* p, std::uint64_t offset) {
    const auto& op = opcode_table()[p[0]];
    delta_command c{op.kind, offset};
    char text[200];
    if (op.kind == cmd_kind::reserved) {
        std::snprintf(text, sizeof text, "unknown command byte %#04x at offset %" PRIu64, p[0], offset);
        return fail(errc::corrupt, text);
    }
    const auto p1 = static_cast<std::int64_t>(op.width1 ? get_be(p + 1, op.width1) : 0);
    const auto p2 = static_cast<std::int64_t>(op.width2 ? get_be(p + 1 + op.width1, op.width2) : 0);
    if (op.kind == cmd_kind::literal) {
        const std::int64_t len = op.immediate ? op.immediate : p1;
        if (len <= 0) {
            std::snprintf(text, sizeof text, "LITERAL at offset %" PRIu64 " has invalid length %" PRId64, offset, len);
            return fail(errc::corrupt, text);
        }
        c.len = static_cast<std::uint64_t>(len);
    } else if (op.kind == cmd_kind::copy) {
        if (p2 <= 0 || p1 < 0) {
            std::snprintf(text, sizeof text, "COPY at offset %" PRIu64 " has invalid %s %" PRId64, offset,
                          p2 <= 0 ? "length" : "position", p2 <= 0 ? p2 : p1);
            return fail(errc::corrupt, text);
        }
        c.pos = static_cast<std::uint64_t>(p1), c.len = static_cast<std::uint64_t>(p2);
    }
    return c;
}

}  // namespace rdelta::detail
