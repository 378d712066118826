// opcodes.hpp - the delta command table (librsync prototab): one source for the
// delta writer and the patch reader.
#pragma once

#include <array>
#include <cstdint>

namespace rdelta::detail {

enum class cmd_kind : std::uint8_t { end, literal, copy, reserved };

/// One opcode's meaning: immediate literal length, or widths of its parameters.
struct opcode_info {
    cmd_kind kind = cmd_kind::reserved;
    std::uint8_t immediate = 0;  ///< literal length carried in the opcode (0x01..0x40)
    std::uint8_t width1 = 0;     ///< bytes of the first parameter (literal length or copy offset)
    std::uint8_t width2 = 0;     ///< bytes of the second parameter (copy length)
};

inline constexpr std::uint8_t op_end = 0x00;
inline constexpr std::uint8_t op_literal_n1 = 0x41;
inline constexpr std::uint8_t op_copy_base = 0x45;

/// The table of all 256 opcodes.
const std::array<opcode_info, 256>& opcode_table() noexcept;

/// Index 0..3 of a parameter width 1, 2, 4, 8.
constexpr int width_index(int width) noexcept {
    return width == 1 ? 0 : width == 2 ? 1 : width == 4 ? 2 : 3;
}

}  // namespace rdelta::detail
