// matcher.hpp - delta generation's scan and command emission, exactly as
// librsync 2.3.2 scans (its deltas are matched byte for byte by the interop suite).
//
// State: `start` (first byte not yet encoded), `scan` (pending literal bytes after
// start) and a pending COPY. While strictly more than one block of data follows
// the window at start+scan, that block-long window is looked up: a match becomes
// (or extends) a COPY, a miss adds one literal byte. At the end of input the
// window shrinks from the front (suffixes of the file are tried). Literal runs
// are cut at 32768 bytes; copies merge only when contiguous in the basis.
// Positions are offsets into the byte range of the current call; rebase() moves
// them when the caller's range moves.
#pragma once

#include "format/command_writer.hpp"
#include "window_search.hpp"

#include <algorithm>

namespace rdelta::detail {

template <weak_kind Kind>
class matcher {
public:
    matcher(const block_index& index, std::size_t block_len, strong_kind strong, command_writer& writer,
            job_stats& stats, work_budget& budget, bool in_place_safe = false)
        : search_(index, block_len, strong, stats, budget, in_place_safe), block_len_(block_len), writer_(writer) {}

    /// Offset in the new file of position 0; whether matches must not move data backwards.
    std::uint64_t base() const noexcept { return search_.base(); }
    bool in_place_safe() const noexcept { return search_.in_place_safe(); }

    /// Current window position.
    std::size_t position() const noexcept { return start_ + scan_; }

    /// Scan windows at positions before `limit` (limit + block_len < end, the size of d).
    void scan_until(const std::uint8_t* d, std::size_t limit, std::size_t end) {
        if (d != data_) search_.forget_data();
        data_ = d;
        std::size_t pos = position();
        while (pos < limit) {
            const search_hit hit = search_.find_next(d, pos, limit, end);
            append_misses(hit.pos - pos);
            if (hit.block < 0) break;
            append_match(static_cast<std::uint64_t>(hit.block) * block_len_, block_len_);
            pos = hit.pos + block_len_;
        }
    }

    /// Phase A over d[0, end): every window followed by more than a block of data.
    void scan_full(const std::uint8_t* d, std::size_t end) {
        if (end > block_len_) scan_until(d, end - block_len_, end);
    }

    /// Phase B over d[0, end), at end of input: ever shorter suffixes of the file.
    void scan_tail(const std::uint8_t* d, std::size_t end) {
        search_.forget_data();
        data_ = d;
        auto& weak = search_.weak();
        while (position() < end && !search_.over_budget()) {
            const std::size_t pos = position();
            if (weak.count == 0) weak.init(d + pos, std::min(block_len_, end - pos));
            const std::size_t len = weak.count;
            const std::int64_t block = search_.lookup_tail(d, pos, len);
            if (block >= 0) {
                append_match(static_cast<std::uint64_t>(block) * block_len_, len);
                search_.reset_weak();
            } else {
                weak.rollout(d[pos]);
                append_misses(1);
            }
        }
    }

    /// Take over the result of a speculative scan that visited the current position:
    /// its matches (in order, each at or after position()) and the position it ended at.
    void replay(const std::uint8_t* d, const search_hit* hits, std::size_t count, std::size_t end_pos) {
        data_ = d;
        for (std::size_t i = 0; i < count; ++i) {
            append_misses(hits[i].pos - position());
            append_match(static_cast<std::uint64_t>(hits[i].block) * block_len_, block_len_);
        }
        append_misses(end_pos - position());
        search_.reset_weak();  // recomputed at the next window; same value as rolled
    }

    /// Windows from position() up to `limit` lie wholly in a run of zeros that
    /// starts at or before position() and may extend past the caller's data
    /// d[0, data_end); `zeros` holds a block of zeros (may be null when
    /// knows_zero_sums()). Encodes them as the scan would, in O(matches): all-zero
    /// windows have equal sums, so once one misses, every later one misses too
    /// (in-place-safe lookups only get stricter).
    void skip_zero_windows(const std::uint8_t* d, std::size_t limit, std::size_t data_end, const std::uint8_t* zeros) {
        data_ = d;
        data_end_ = data_end;
        std::size_t pos = position();
        while (pos < limit) {
            const std::int64_t block = search_.lookup_zero_window(zeros, pos);
            if (block < 0) {
                append_misses(limit - pos);
                break;
            }
            append_match(static_cast<std::uint64_t>(block) * block_len_, block_len_);
            pos += block_len_;
        }
        search_.reset_weak();
        search_.forget_data();
    }

    /// Whether skip_zero_windows() has the sums of a block of zeros already, and
    /// needs no `zeros`.
    bool knows_zero_sums() const noexcept { return search_.knows_zero_sums(); }

    /// Emit the pending COPY or literal (from the range of the last scan).
    void flush() {
        if (copy_len_ > 0) {
            writer_.copy(copy_pos_, copy_len_);
            copy_len_ = 0;
        } else if (scan_ > 0) {
            // Bytes past the caller's data are zeros (skip_zero_windows).
            const std::size_t real = start_ < data_end_ ? std::min(scan_, data_end_ - start_) : 0;
            writer_.literal(real ? data_ + start_ : nullptr, real, scan_ - real);
            start_ += scan_;
            scan_ = 0;
        }
    }

    /// First byte not yet encoded; bytes before it are no longer needed.
    std::size_t start() const noexcept { return start_; }
    /// The caller's byte range moved: offset `delta` is now offset 0.
    void rebase(std::size_t delta) noexcept {
        start_ -= delta;
        data_end_ = no_data_end;
        search_.move_base(delta);
        search_.forget_data();  // the range's bytes will change
    }

private:
    void append_match(std::uint64_t pos, std::size_t len) {
        if (copy_len_ > 0 && copy_pos_ + copy_len_ == pos) {
            copy_len_ += len;
        } else {
            flush();
            copy_pos_ = pos, copy_len_ = len;
        }
        start_ += scan_ + len;
        scan_ = 0;
    }

    // `n` missed windows: librsync flushes before a miss when a COPY is pending or
    // the literal has reached 32768 bytes.
    void append_misses(std::size_t n) {
        while (n > 0) {
            if (copy_len_ > 0 || scan_ >= max_literal_run) flush();
            const std::size_t step = std::min(n, max_literal_run - scan_);
            scan_ += step;
            n -= step;
        }
    }

    window_search<Kind> search_;
    const std::size_t block_len_;
    command_writer& writer_;
    static constexpr std::size_t no_data_end = ~std::size_t{0};
    const std::uint8_t* data_ = nullptr;
    std::size_t data_end_ = no_data_end;  // end of real bytes at data_ while skipping zeros
    std::size_t start_ = 0, scan_ = 0;
    std::uint64_t copy_pos_ = 0, copy_len_ = 0;
};

}  // namespace rdelta::detail
