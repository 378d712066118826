// command_decoder.hpp - the one place a delta's untrusted bytes are turned into
// commands and checked: the magic, then each opcode and its parameters, with the
// error codes librsync's patch gives (106 corrupt, 104 bad magic). The patch job,
// command_reader (a delta in memory) and command_stream (a delta read as a stream)
// all call it, and prefix the messages with the delta's name.
#pragma once

#include "opcodes.hpp"

#include <rdelta/error.hpp>

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// One decoded command; for a LITERAL `data` points at its bytes when the caller
/// holds them (command_reader), else it is null and they follow in the stream.
struct delta_command {
    cmd_kind kind{};
    std::uint64_t offset = 0;  ///< where the command starts in the delta
    std::uint64_t pos = 0;     ///< COPY: basis offset
    std::uint64_t len = 0;     ///< LITERAL or COPY length
    const std::uint8_t* data = nullptr;
};

/// The delta magic at `p` (4 bytes): bad_magic otherwise, saying when it is a
/// signature's. Messages carry no file name.
result<void> check_delta_magic(const std::uint8_t* p);

/// Bytes of the command that starts with `opcode`: the opcode and its parameters.
std::size_t command_header_size(std::uint8_t opcode) noexcept;

/// The command whose header (command_header_size(p[0]) bytes) is at `p`, found at
/// `offset` in the delta. Parameters are signed 64-bit as in librsync: corrupt for
/// a reserved opcode, a LITERAL length or COPY length that is not positive, or a
/// negative COPY position.
result<delta_command> decode_command(const std::uint8_t* p, std::uint64_t offset);

}  // namespace rdelta::detail
