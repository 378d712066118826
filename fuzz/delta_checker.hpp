// delta_checker.hpp - checks a delta that rdelta made, with a decoder of its own
// (written from the librsync format, not from src/format/opcodes.*):
//   * canonical encoding: magic, commands, one END, nothing after it; literals of
//     up to 64 bytes carry their length in the opcode, every other parameter uses
//     the smallest of 1, 2, 4, 8 bytes; no empty commands; literal runs of at most
//     32768 bytes (except in slack deltas); adjacent COPYs are never contiguous
//     in the basis (librsync merges those);
//   * meaning: LITERAL data is the new file's bytes at that point, and each
//     block-long (or shorter, at the end) window a COPY covers has the weak key and
//     strong-sum prefix of the signature block it copies. So a delta is right
//     whenever the signature is, without knowing the basis.
#pragma once

#include "fuzz_common.hpp"

#include "checksum/rabinkarp.hpp"
#include "checksum/rollsum.hpp"
#include "checksum/strong_sum.hpp"
#include "checksum/weak_sum.hpp"

#include <rdelta/format.hpp>
#include <rdelta/signature.hpp>

namespace rdelta::fuzz {

struct delta_command {
    bool copy = false;
    std::uint64_t pos = 0;  ///< COPY: basis offset; LITERAL: offset of its data in the delta
    std::uint64_t len = 0;
    std::uint64_t new_off = 0;  ///< where its bytes go in the new file
};

namespace detail_checker {

inline std::uint64_t get_be(const std::uint8_t* p, int w) {
    std::uint64_t v = 0;
    for (int i = 0; i < w; ++i) v = v << 8 | p[i];
    return v;
}

inline int min_width(std::uint64_t v) {
    return v <= 0xff ? 1 : v <= 0xffff ? 2 : v <= 0xffffffffu ? 4 : 8;
}

}  // namespace detail_checker

/// Decode `delta`, aborting unless it is canonical; `slack` lifts the literal cap.
inline std::vector<delta_command> decode_canonical_delta(std::span<const std::uint8_t> delta, bool slack) {
    using detail_checker::get_be;
    using detail_checker::min_width;
    static constexpr int widths[4] = {1, 2, 4, 8};
    std::vector<delta_command> cmds;
    FUZZ_CHECK(delta.size() >= 5 && get_be(delta.data(), 4) == 0x72730236u, "delta of %zu bytes lacks magic/END",
               delta.size());
    std::size_t i = 4;
    std::uint64_t out = 0;
    for (;;) {
        FUZZ_CHECK(i < delta.size(), "delta ends without END at %zu", i);
        const std::uint8_t op = delta[i++];
        if (op == 0) break;
        delta_command c;
        c.new_off = out;
        if (op <= 0x44) {
            int w = 0;
            if (op <= 0x40) {
                c.len = op;
            } else {
                w = widths[op - 0x41];
                FUZZ_CHECK(i + w <= delta.size(), "truncated LITERAL header at %zu", i - 1);
                c.len = get_be(&delta[i], w);
                FUZZ_CHECK(c.len > 0x40 && w == min_width(c.len), "LITERAL %llu encoded with %d bytes at %zu",
                           static_cast<unsigned long long>(c.len), w, i - 1);
            }
            i += w;
            FUZZ_CHECK(slack || c.len <= max_literal_run, "LITERAL of %llu bytes",
                       static_cast<unsigned long long>(c.len));
            FUZZ_CHECK(c.len <= delta.size() - i, "LITERAL data past the end at %zu", i);
            c.pos = i;
            i += c.len;
        } else {
            FUZZ_CHECK(op <= 0x54, "reserved opcode %#x at %zu", op, i - 1);
            const int wp = widths[(op - 0x45) / 4], wl = widths[(op - 0x45) % 4];
            FUZZ_CHECK(i + wp + wl <= delta.size(), "truncated COPY at %zu", i - 1);
            c.copy = true;
            c.pos = get_be(&delta[i], wp);
            c.len = get_be(&delta[i + wp], wl);
            FUZZ_CHECK(c.len > 0 && wp == min_width(c.pos) && wl == min_width(c.len),
                       "COPY %llu+%llu encoded with %d+%d bytes at %zu", static_cast<unsigned long long>(c.pos),
                       static_cast<unsigned long long>(c.len), wp, wl, i - 1);
            if (!cmds.empty() && cmds.back().copy)
                FUZZ_CHECK(cmds.back().pos + cmds.back().len != c.pos, "contiguous COPYs not merged at %zu", i - 1);
            i += wp + wl;
        }
        out += c.len;
        cmds.push_back(c);
    }
    FUZZ_CHECK(i == delta.size(), "%zu bytes after END", delta.size() - i);
    return cmds;
}

/// Check that `delta` (made against `sig`) rebuilds `new_file`, as far as the
/// signature can tell: literals are new-file bytes, copies have the blocks' sums.
inline void check_delta_against(const signature& sig, std::span<const std::uint8_t> delta,
                                std::span<const std::uint8_t> new_file) {
    const auto cmds = decode_canonical_delta(delta, sig.block_count() == 0);
    const sig_params& prm = sig.params();
    const sig_format fmt = prm.format();
    const std::uint64_t bl = prm.block_len;
    std::uint64_t covered = 0;
    for (const delta_command& c : cmds) {
        FUZZ_CHECK(c.len <= new_file.size() - covered, "delta covers more than the %zu-byte new file", new_file.size());
        const std::uint8_t* here = new_file.data() + covered;
        if (!c.copy) {
            FUZZ_CHECK(std::memcmp(here, delta.data() + c.pos, c.len) == 0,
                       "LITERAL at new offset %llu is not new data", static_cast<unsigned long long>(covered));
        } else {
            FUZZ_CHECK(sig.block_count() > 0 && c.pos % bl == 0, "COPY from %llu: not a block start",
                       static_cast<unsigned long long>(c.pos));
            for (std::uint64_t done = 0; done < c.len; done += bl) {
                const std::uint64_t block = (c.pos + done) / bl;
                const std::size_t w = static_cast<std::size_t>(std::min(bl, c.len - done));
                FUZZ_CHECK(block < sig.block_count(), "COPY reaches block %llu of %zu",
                           static_cast<unsigned long long>(block), sig.block_count());
                const std::uint8_t* win = here + done;
                const std::uint32_t weak = fmt.weak == weak_kind::rollsum ? rdelta::detail::rollsum_of(win, w)
                                                                          : rdelta::detail::rabinkarp_of(win, w);
                FUZZ_CHECK(
                    rdelta::detail::weak_key(fmt.weak, weak) == rdelta::detail::weak_key(fmt.weak, sig.weak_sum(block)),
                    "COPY window at new offset %llu has weak sum %#x, block %llu has %#x",
                    static_cast<unsigned long long>(covered + done), weak, static_cast<unsigned long long>(block),
                    sig.weak_sum(block));
                std::uint8_t digest[32];
                rdelta::detail::strong_sum(fmt.strong, win, w, digest);
                FUZZ_CHECK(same({digest, prm.strong_len}, sig.strong_sum(block)),
                           "COPY window at new offset %llu: strong sum differs from block %llu",
                           static_cast<unsigned long long>(covered + done), static_cast<unsigned long long>(block));
                if (w < bl) FUZZ_CHECK(done + w == c.len, "short window inside a COPY");
            }
        }
        covered += c.len;
    }
    FUZZ_CHECK(covered == new_file.size(), "delta covers %llu of %zu new-file bytes",
               static_cast<unsigned long long>(covered), new_file.size());
}

}  // namespace rdelta::fuzz
