// window_search.hpp - finding the next window that matches a signature block.
//
// The weak sum rolls one byte per missed window; a prefilter bitmap rejects
// almost every miss without touching the index, and the strong sum of a window
// is computed only when its weak key is in the index. A search depends only on
// the data and the position it starts at, which is what lets delta generation
// scan segments speculatively in parallel.
#pragma once

#include "block_index.hpp"
#include "checksum/strong_sum.hpp"
#include "checksum/weak_sum.hpp"
#include "core/test_hooks.hpp"
#include "window_memo.hpp"
#include "window_skip.hpp"
#include "work_budget.hpp"

#include <rdelta/format.hpp>
#include <rdelta/job.hpp>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace rdelta::detail {

/// A window position and the block it matches (-1: no match before the limit).
struct search_hit {
    std::size_t pos;
    std::int64_t block;
};

template <weak_kind Kind>
class window_search {
    using weak_state = std::conditional_t<Kind == weak_kind::rollsum, rollsum, rabinkarp>;

public:
    window_search(const block_index& index, std::size_t block_len, strong_kind strong, job_stats& stats,
                  work_budget& budget, bool in_place_safe = false, std::uint64_t base = 0)
        : index_(index),
          block_len_(block_len),
          strong_(strong),
          stats_(stats),
          budget_(budget),
          in_place_safe_(in_place_safe),
          base_(base),
          // Batching candidates pays when a block-long stretch holds several: there are
          // blocks * block_len / 2^32 per block of data that does not match.
          gather_(static_cast<long double>(index.size()) * block_len >= 8589934592.0L || test_hooks::gather_forced()) {}

    /// Offset in the new file of position 0 of the data passed in.
    std::uint64_t base() const noexcept { return base_; }
    void move_base(std::uint64_t delta) noexcept { base_ += delta; }
    bool in_place_safe() const noexcept { return in_place_safe_; }

    /// First window at or after `pos` and before `limit` whose block-long window
    /// matches; windows need a block of data plus one byte: limit + block_len < end,
    /// where `end` is the size of the data at d.
    search_hit find_next(const std::uint8_t* d, std::size_t pos, std::size_t limit, std::size_t end) {
        const std::size_t bl = block_len_;
        if (pos >= limit) return {pos, -1};
        if (weak_.count == 0) weak_.init(d + pos, bl);
        for (;;) {
            const std::size_t p = roll_until_candidate(d, pos, limit);
            if (p == limit) return {p, -1};
            // Whole-block windows that exist in the data can be hashed ahead (even
            // past `limit`: the next call over the same data uses them).
            const std::size_t ahead = std::min<std::size_t>(batch_windows, (end - p) / bl);
            const std::int64_t block = lookup(d + p, bl, ahead, p, d, limit);
            // Over budget the job fails: every later window counts as a miss.
            if (budget_.exceeded()) return {limit, -1};
            if (block >= 0) {
                weak_.count = 0;
                predicted_ = d + p + bl;
                return {p, block};
            }
            if (const std::size_t last = last_periodic_miss(d, p, limit); last > p) {
                // Counted as the per-window scan would: each is a search and a weak hit.
                stats_.searches += static_cast<std::int64_t>(last - p);
                stats_.weak_hits += static_cast<std::int64_t>(last - p);
                test_hooks::count(test_hooks::event::periodic_windows_skipped, last - p);
                // Window last equals window p when a whole number of periods lies between.
                if ((last - p) % streak_shift_ != 0) weak_.init(d + last, bl);
                weak_.rotate(d[last], d[last + bl]);
                pos = last + 1;
                continue;
            }
            if (const std::size_t next = next_candidate(d, p, limit)) {
                // The windows in between were tested when the candidates were
                // gathered: none has its key in the index, so each would miss.
                stats_.searches += static_cast<std::int64_t>(next - p - 1);
                pos = next;
                continue;
            }
            weak_.rotate(d[p], d[p + bl]);
            pos = p + 1;
        }
    }

    /// Look up the tail window d[pos, pos + len), the rest of the input, whose weak
    /// sum is current. A key the prefilter rejects is not in the index; windows
    /// shorter than a block that are hashed go in batches (hash_tail_candidates).
    std::int64_t lookup_tail(const std::uint8_t* d, std::size_t pos, std::size_t len) {
        if (!index_.may_contain(weak_key<Kind>(weak_.digest()))) {
            ++stats_.searches;
            return -1;
        }
        if (len >= block_len_) return lookup(d + pos, len, 1, pos);
        return lookup(d + pos, len, 1, pos, d, pos + len);
    }

    /// Look up an all-zero block-long window at `pos`; `zeros` holds a block of
    /// zeros (read only until knows_zero_sums()). Its sums are computed once: a run
    /// of zeros costs no hashing.
    std::int64_t lookup_zero_window(const std::uint8_t* zeros, std::size_t pos) {
        ++stats_.searches;
        if (!zero_sums_) {
            weak_state w;
            w.init(zeros, block_len_);
            zero_key_ = weak_key<Kind>(w.digest());
            zero_digest_of(zeros);
            zero_sums_ = true;
        }
        const std::uint64_t min_block = in_place_safe_ ? (base_ + pos + block_len_ - 1) / block_len_ : 0;
        bool key_found = false;
        const std::int64_t block = index_.find(
            zero_key_,
            [&] {
                key_found = true;
                return static_cast<const std::uint8_t*>(zero_digest_);
            },
            min_block);
        stats_.weak_hits += key_found;
        stats_.matches += block >= 0;
        return block;
    }

    bool knows_zero_sums() const noexcept { return zero_sums_; }

    /// The bytes at previously seen addresses may have changed (a new call).
    void forget_data() noexcept {
        cached_ = 0, predicted_ = nullptr, candidates_ = 0, gathered_to_ = nullptr, tail_candidates_ = 0;
        memo_window_ = nullptr, streak_ = 0;
        memo_.clear();
    }

    /// Whether the search stopped because the work budget ran out.
    bool over_budget() const noexcept { return budget_.exceeded(); }

    /// The rolling weak sum: count 0 means "recompute at the next window".
    weak_state& weak() noexcept { return weak_; }
    void reset_weak() noexcept { weak_.count = 0, streak_ = 0; }

private:
    // Rolls to the first window at or after p (before limit) that passes the
    // prefilter.
    std::size_t roll_until_candidate(const std::uint8_t* d, std::size_t p, std::size_t limit) {
        weak_state w = weak_;  // in registers for the hot loop
        const std::size_t next = next_passing(d, p, limit, w);
        weak_ = w;
        stats_.searches += static_cast<std::int64_t>(next - p);
        return next;
    }

    // The first window at or after p and before limit that passes the prefilter,
    // or limit; w: the state of window p in, of the window returned out.
    std::size_t next_passing(const std::uint8_t* d, std::size_t p, std::size_t limit, weak_state& w) const {
        // Where hits are dense (runs, collisions) the window at p is often one: test
        // it alone first, so that a group is not rolled for nothing at every window.
        if (p >= limit || index_.may_contain(weak_key<Kind>(w.digest()))) return p;
        // Whole groups of windows on the SIMD kernels, the rest here.
        if (const std::size_t q = skip_rejected(index_.prefilter(), d, p, limit, w); q != p) {
            if (index_.may_contain(weak_key<Kind>(w.digest()))) return q;
            p = q;  // tested again below, with the rest
        }
        // Keys are computed a group at a time and their filter words prefetched, so
        // the cache misses of a large filter overlap.
        const std::size_t bl = block_len_;
        std::uint32_t keys[roll_group];
        while (p < limit) {
            const std::size_t m = std::min(roll_group, limit - p);
            const weak_state start = w;
            for (std::size_t i = 0;; ++i) {
                keys[i] = weak_key<Kind>(w.digest());
                index_.prefetch(keys[i]);
                if (i + 1 == m) break;
                w.rotate(d[p + i], d[p + i + bl]);
            }
            std::size_t hit = 0;
            while (hit < m && !index_.may_contain(keys[hit])) ++hit;
            if (hit < m) {  // back to that window's state
                w = start;
                for (std::size_t i = 0; i < hit; ++i) w.rotate(d[p + i], d[p + i + bl]);
                return p + hit;
            }
            w.rotate(d[p + m - 1], d[p + m - 1 + bl]);
            p += m;
        }
        return p;
    }

    // After a miss at window p: the last window before limit known to miss, or p.
    // When the k windows up to p each equal the window k before them (memo_ found
    // them at distance k) and missed, every later window that equals the window k
    // before it misses too (in-place-safe lookups only get stricter with the
    // position), and its key is in the index. The data repeats at distance k as far
    // as x[i] == x[i + k]; k is 1 in a run of one byte value.
    std::size_t last_periodic_miss(const std::uint8_t* d, std::size_t p, std::size_t limit) noexcept {
        if (memo_window_ != d + p) {
            streak_ = 0;
            return p;
        }
        const bool continues = streak_ > 0 && streak_end_ + 1 == d + p && streak_shift_ == memo_shift_;
        streak_ = continues ? streak_ + 1 : 1;
        streak_shift_ = memo_shift_, streak_end_ = d + p;
        const std::size_t k = streak_shift_;
        if (streak_ < k) return p;
        streak_ = 0;  // windows passed over are not looked up: a new streak starts after them
        // Window p equals window p - k: x[i] == x[i + k] for i in [p - k, p - k + block).
        const std::size_t stop = limit + block_len_;  // one past the last byte a window before limit holds
        std::size_t m = p - k + block_len_;
        for (std::uint64_t a, b; m + k + 8 <= stop; m += 8) {
            std::memcpy(&a, d + m, 8);
            std::memcpy(&b, d + m + k, 8);
            if (a != b) break;
        }
        while (m + k < stop && d[m] == d[m + k]) ++m;
        return std::min(m + k - block_len_, limit - 1);
    }

    // `d` and `limit` (find_next only): the data and the scan's end, so that the
    // next candidate windows can be hashed together with this one.
    std::int64_t lookup(const std::uint8_t* window, std::size_t len, std::size_t ahead, std::size_t pos,
                        const std::uint8_t* d = nullptr, std::size_t limit = 0) {
        ++stats_.searches;
        const std::uint32_t key = weak_key<Kind>(weak_.digest());
        // In-place-safe: only blocks starting at or after this window's offset.
        const std::uint64_t min_block = in_place_safe_ ? (base_ + pos + block_len_ - 1) / block_len_ : 0;
        if (len == block_len_) {
            if (const window_memo::entry* same = memo_.find(window, key, len)) {
                ++stats_.weak_hits;  // its key was found for the earlier window
                memo_window_ = window, memo_shift_ = memo_.shift();
                // Equal windows miss alike: min_block only grows with the position.
                if (same->missed) return -1;
                const std::int64_t block = index_.find(
                    key, [&] { return static_cast<const std::uint8_t*>(same->digest); }, min_block);
                stats_.matches += block >= 0;
                return block;
            }
        }
        const std::uint8_t* digest = nullptr;
        const std::int64_t block = index_.find(
            key, [&] { return digest = strong_of(window, len, ahead, d, pos, limit); }, min_block);
        stats_.weak_hits += digest != nullptr;
        stats_.matches += block >= 0;
        if (digest && len == block_len_) {
            memo_.remember(window, key, digest, block < 0);
            // Weak hits that miss: their windows are hashed in batches, from ever further ahead.
            if (!gather_)
                gather_range_ = block >= 0           ? 0
                                : gather_range_ == 0 ? block_len_
                                                     : std::min(2 * gather_range_, max_gather_range());
        }
        return block;
    }

    // The strong sum of a block of zeros, computed once from `zeros`.
    const std::uint8_t* zero_digest_of(const std::uint8_t* zeros) {
        if (!zero_digest_ready_) {
            strong_sum(strong_, zeros, block_len_, zero_digest_);
            count_strong(1, block_len_);
            zero_digest_ready_ = true;
        }
        return zero_digest_;
    }

    static bool all_zero(const std::uint8_t* p, std::size_t n) noexcept {
        return p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0;
    }

    const std::uint8_t* strong_of(const std::uint8_t* window, std::size_t len, std::size_t ahead, const std::uint8_t* d,
                                  std::size_t pos, std::size_t limit) {
        const std::size_t bl = block_len_;
        // Zero windows (unwritten disk space) are common and need no hashing; any
        // other window fails this test at its first non-zero byte.
        if (len == bl && all_zero(window, len)) return zero_digest_of(window);
        if (len == bl && cached_ > 0 && window >= cache_start_) {
            const auto offset = static_cast<std::size_t>(window - cache_start_);
            if (offset % bl == 0 && offset / bl < cached_) return cache_ + offset / bl * digest_stride;
        }
        if (len == bl && window == predicted_ && ahead > 1) {
            strong_sum_many(strong_, window, bl, ahead, cache_);
            count_strong(ahead, ahead * bl);
            cache_start_ = window, cached_ = ahead;
            return cache_;
        }
        if (len == bl)
            for (std::size_t i = 0; i < candidates_; ++i)
                if (candidate_at_[i] == window) return candidate_digest_ + i * digest_stride;
        if (len < bl && d) return tail_digest(d, pos, len);
        if (len == bl && d && gather_) return hash_candidates(d, pos, limit, bl);
        if (len == bl && d && gather_range_ > 0) return hash_candidates(d, pos, limit, gather_range_);
        count_strong(1, len);
        strong_sum(strong_, window, len, digest_);
        return digest_;
    }

    // Hash the window at p together with the next windows (within `range` windows,
    // before limit) whose weak key is in the index: one multi-buffer call costs about
    // as much as one hash. Which of them the scan reaches depends on the lookups in
    // between; those it skips (inside a match) were hashed for nothing.
    //
    // Large signatures (gather_) have several candidates per block of data that does
    // not match: range is a block. Smaller ones have fewer: after weak hits that
    // missed, the range doubles up to max_gather_range() (32 blocks of 32 KiB: 8
    // candidates against a 1 GiB basis's signature), and a match ends it. Rolling
    // ahead is not wasted: after a miss at the last candidate the scan goes on from
    // where the gathering stopped (next_candidate).
    const std::uint8_t* hash_candidates(const std::uint8_t* d, std::size_t p, std::size_t limit, std::size_t range) {
        const std::size_t bl = block_len_;
        const std::size_t lanes = std::min(max_candidates, strong_sum_lanes(strong_));
        candidate_at_[0] = d + p;
        std::size_t n = 1;
        weak_state w = weak_;  // the window at p
        const std::size_t stop = limit - p > range ? p + range : limit;
        gathered_to_ = nullptr;
        for (std::size_t q = p; n < lanes;) {  // q < stop: the window w is at
            w.rotate(d[q], d[q + bl]);
            q = next_passing(d, q + 1, stop, w);
            if (q == stop) {  // no other candidate before stop: the scan may go on from there
                gathered_to_ = d + stop;
                gathered_state_ = w;
                break;
            }
            if (index_.has_key(weak_key<Kind>(w.digest()))) {
                candidate_at_[n] = d + q;
                candidate_state_[n++] = w;
            }
        }
        strong_sum_gather(strong_, candidate_at_, bl, n, candidate_digest_);
        count_strong(n, n * bl);
        if (n > 1) test_hooks::count(test_hooks::event::candidate_batch, 1);
        candidates_ = n;
        return candidate_digest_;
    }

    // The digest of the tail window d[pos, pos + len): hashed already with an
    // earlier tail window, or now together with the next tail windows whose key is
    // in the index. Tail windows all end at the end of the input and shrink by a
    // byte per position, so they have different lengths (strong_sum_gather_var).
    // Rolling ahead costs a weak sum per window; a match ends the input, so at most
    // one batch is hashed for nothing.
    const std::uint8_t* tail_digest(const std::uint8_t* d, std::size_t pos, std::size_t len) {
        for (std::size_t i = 0; i < tail_candidates_; ++i)
            if (tail_at_[i] == d + pos && tail_len_[i] == len) return tail_digest_ + i * digest_stride;
        const std::size_t lanes = strong_ == strong_kind::blake2 ? max_tail_candidates : 1;
        const std::size_t end = pos + len;
        std::size_t n = 0, bytes = 0;
        tail_at_[n] = d + pos, tail_len_[n++] = len, bytes += len;
        weak_state w = weak_;
        for (std::size_t q = pos; n < lanes && q + 1 < end;) {
            w.rollout(d[q++]);
            const std::uint32_t key = weak_key<Kind>(w.digest());
            if (index_.may_contain(key) && index_.has_key(key))
                tail_at_[n] = d + q, tail_len_[n++] = end - q, bytes += end - q;
        }
        strong_sum_gather_var(strong_, tail_at_, tail_len_, n, tail_digest_);
        count_strong(n, bytes);
        if (n > 1) test_hooks::count(test_hooks::event::candidate_batch, 1);
        tail_candidates_ = n;
        return tail_digest_;
    }

    // After a miss at window p, the position of the next gathered candidate before
    // limit, or where the gathering stopped (at most limit) when p is the last one,
    // whose weak state becomes current; 0 if p is not a candidate followed by either.
    std::size_t next_candidate(const std::uint8_t* d, std::size_t p, std::size_t limit) noexcept {
        for (std::size_t i = 0; i < candidates_; ++i)
            if (candidate_at_[i] == d + p) {
                if (i + 1 == candidates_) {
                    if (!gathered_to_ || static_cast<std::size_t>(gathered_to_ - d) > limit) return 0;
                    weak_ = gathered_state_;
                    return static_cast<std::size_t>(gathered_to_ - d);
                }
                const auto next = static_cast<std::size_t>(candidate_at_[i + 1] - d);
                if (next >= limit) return 0;
                weak_ = candidate_state_[i + 1];
                return next;
            }
        return 0;
    }

    // The furthest hash_candidates() looks ahead of a weak hit when gathering is not on.
    std::size_t max_gather_range() const noexcept { return std::max<std::size_t>(block_len_, std::size_t{1} << 20); }

    void count_strong(std::size_t sums, std::size_t bytes) noexcept {
        stats_.strong_calcs += static_cast<std::int64_t>(sums);
        stats_.strong_bytes += static_cast<std::int64_t>(bytes);
        budget_.charge(bytes);
    }

    // Blocks after a match hashed in one call: the widest kernels (MD4 and, with
    // AVX-512, BLAKE2b) take 16 messages. On Zen 5 the 16-lane BLAKE2b kernel does
    // twice the 8-lane one's work in well under twice its time, and MD4's 16 lanes
    // were half empty with 8 (bench/README.md, "Measurements behind design
    // choices"). Zen 4's half-rate 512-bit units gain nothing.
    static constexpr std::size_t batch_windows = 16;
    static constexpr std::size_t roll_group = 16;  // windows whose filter words are fetched together
    const block_index& index_;
    const std::size_t block_len_;
    const strong_kind strong_;
    job_stats& stats_;
    work_budget& budget_;
    const bool in_place_safe_;
    std::uint64_t base_;
    weak_state weak_;
    std::uint8_t digest_[digest_stride];
    const std::uint8_t* predicted_ = nullptr;    // the window right after the last match
    const std::uint8_t* cache_start_ = nullptr;  // first window hashed ahead
    std::size_t cached_ = 0;                     // windows hashed ahead
    std::uint8_t cache_[batch_windows * digest_stride];
    bool zero_sums_ = false;  // zero_key_ is computed
    bool zero_digest_ready_ = false;
    std::uint32_t zero_key_ = 0;
    std::uint8_t zero_digest_[digest_stride];
    window_memo memo_;                           // recent windows' digests, for windows equal to them
    const std::uint8_t* memo_window_ = nullptr;  // the last window memo_ found equal to an earlier one
    std::size_t memo_shift_ = 0;                 // at this distance
    const std::uint8_t* streak_end_ = nullptr;   // windows up to here missed as memo_ hits at one distance
    std::size_t streak_shift_ = 0, streak_ = 0;  // that distance, and how many windows
    static constexpr std::size_t max_candidates = 16;
    const bool gather_;             // hash candidate windows in batches, a block ahead
    std::size_t gather_range_ = 0;  // otherwise this far ahead (0: one at a time)
    std::size_t candidates_ = 0;
    const std::uint8_t* candidate_at_[max_candidates];
    weak_state candidate_state_[max_candidates];  // the rolling sum at each candidate
    const std::uint8_t* gathered_to_ = nullptr;   // no candidate after the last one before this window
    weak_state gathered_state_;                   // the rolling sum there
    std::uint8_t candidate_digest_[max_candidates * digest_stride];
    static constexpr std::size_t max_tail_candidates = 8;  // the lanes of the widest BLAKE2b kernel
    std::size_t tail_candidates_ = 0;                      // tail windows hashed together
    const std::uint8_t* tail_at_[max_tail_candidates];
    std::size_t tail_len_[max_tail_candidates];
    std::uint8_t tail_digest_[max_tail_candidates * digest_stride];
};

}  // namespace rdelta::detail
