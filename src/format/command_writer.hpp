// command_writer.hpp - encodes delta commands with librsync's width rules (the
// smallest of 1, 2, 4, 8 bytes for each parameter; literals of up to 64 bytes
// carry their length in the opcode).
#pragma once

#include "core/output_queue.hpp"
#include "netint.hpp"
#include "opcodes.hpp"

#include <rdelta/job.hpp>

#include <cstring>

namespace rdelta::detail {

class command_writer {
public:
    command_writer(output_queue& out, job_stats& stats) : out_(out), stats_(stats) {}

    void magic(std::uint32_t value) { put_be(out_.reserve(4), value, 4); }
    void end() { *out_.reserve(1) = op_end; }

    void literal(const std::uint8_t* data, std::uint64_t len) { literal(data, len, 0); }

    /// One LITERAL of `len` bytes from `data` followed by `zeros` zero bytes.
    void literal(const std::uint8_t* data, std::uint64_t len, std::uint64_t zeros) {
        const std::uint64_t total = len + zeros;
        const int w = total <= 0x40 ? 0 : int_width(total);
        // A literal run of the matcher (at most 32 KiB) goes to a spilling queue's
        // sink from the caller's bytes: one copy fewer of data that matches nothing
        // (bench/README.md, "Measurements behind design choices"). Longer ones go through
        // the queue, which hands them on in pieces of its threshold.
        const bool direct = zeros == 0 && len >= pass_through_min && len <= pass_through_max;
        std::uint8_t* o = out_.reserve(1 + w + (direct ? 0 : total));
        literal_opcode(o, total, w);
        if (direct) {
            if (!out_.pass_through(data, len)) out_.append(data, len);
        } else {
            if (len) std::memcpy(o + 1 + w, data, len);
            std::memset(o + 1 + w + len, 0, zeros);
        }
    }

    /// The opcode and length of a LITERAL of `len` bytes, which the caller then
    /// writes itself.
    void literal_command(std::uint64_t len) {
        const int w = len <= 0x40 ? 0 : int_width(len);
        literal_opcode(out_.reserve(1 + w), len, w);
    }

    void copy(std::uint64_t pos, std::uint64_t len) {
        const int wp = int_width(pos), wl = int_width(len);
        std::uint8_t* o = out_.reserve(1 + wp + wl);
        o[0] = static_cast<std::uint8_t>(op_copy_base + 4 * width_index(wp) + width_index(wl));
        put_be(o + 1, pos, wp);
        put_be(o + 1 + wp, len, wl);
        stats_.copy_cmds += 1;
        stats_.copy_bytes += static_cast<std::int64_t>(len);
        stats_.copy_cmdbytes += 1 + wp + wl;
    }

private:
    // Writes a LITERAL's opcode and `w`-byte length (none: in the opcode) at `o`.
    void literal_opcode(std::uint8_t* o, std::uint64_t len, int w) {
        if (w == 0) {
            o[0] = static_cast<std::uint8_t>(len);
        } else {
            o[0] = static_cast<std::uint8_t>(op_literal_n1 + width_index(w));
            put_be(o + 1, len, w);
        }
        stats_.lit_cmds += 1;
        stats_.lit_bytes += static_cast<std::int64_t>(len);
        stats_.lit_cmdbytes += 1 + w;
    }

    static constexpr std::uint64_t pass_through_min = 8192, pass_through_max = 65536;
    output_queue& out_;
    job_stats& stats_;
};

}  // namespace rdelta::detail
