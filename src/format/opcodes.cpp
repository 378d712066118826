// opcodes.cpp - builds the 256-entry opcode table once.
#include "opcodes.hpp"

namespace rdelta::detail {

namespace {

constexpr std::array<opcode_info, 256> build_table() {
    constexpr std::uint8_t widths[4] = {1, 2, 4, 8};
    std::array<opcode_info, 256> t{};  // default: reserved
    t[op_end] = {cmd_kind::end, 0, 0, 0};
    for (int n = 1; n <= 0x40; ++n) t[n] = {cmd_kind::literal, static_cast<std::uint8_t>(n), 0, 0};
    for (int i = 0; i < 4; ++i) t[op_literal_n1 + i] = {cmd_kind::literal, 0, widths[i], 0};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) t[op_copy_base + 4 * i + j] = {cmd_kind::copy, 0, widths[i], widths[j]};
    return t;
}

constexpr auto table = build_table();

}  // namespace

const std::array<opcode_info, 256>& opcode_table() noexcept {
    return table;
}

}  // namespace rdelta::detail
