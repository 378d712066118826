// window_memo.hpp - strong sums of recent windows, reused for windows equal to them.
//
// In a run of one byte value, or data of a short period p, the window at x equals
// the window at x - p, so its weak sum hits the same blocks and its strong sum is
// the same: hashing it again is wasted (a 4 MiB run against a rollsum signature of
// zeros hashed 2048 bytes per byte). The memo keeps the last few windows that were
// strong-hashed, with their digests and whether they missed. A window whose weak
// key equals one of them is compared with it by tracking periodicity: the windows
// at a and a + k are equal exactly when x[0] == x[k] for every x in [a, a + len).
// The memo extends a verified stretch of that equality as the scan moves on, so
// each byte is compared about once per period: a run costs O(1) per window.
#pragma once

#include "checksum/strong_sum.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace rdelta::detail {

class window_memo {
public:
    struct entry {
        const std::uint8_t* at = nullptr;  // the window (nullptr: unused)
        std::uint32_t key = 0;
        bool missed = false;  // no block matched it
        std::uint8_t digest[digest_stride];
    };

    /// The bytes at remembered addresses may have changed.
    void clear() noexcept {
        for (entry& e : ring_) e.at = nullptr;
        shift_ = 0;
    }

    /// A remembered window equal to the `len` bytes at `w` (whose weak key is `key`),
    /// or nullptr. The entry now stands for `w`, so that the next window of the same
    /// phase is compared at the same distance.
    const entry* find(const std::uint8_t* w, std::uint32_t key, std::size_t len) noexcept {
        entry* best = nullptr;
        for (entry& e : ring_)
            if (e.at && e.at < w && e.key == key && (!best || e.at > best->at)) best = &e;
        if (!best || !equal(best->at, static_cast<std::size_t>(w - best->at), len)) return nullptr;
        best->at = w;
        return best;
    }

    /// The distance from the window the last successful find() was given back to the
    /// remembered one it equals: 1 means that window is a single byte value repeated.
    std::size_t shift() const noexcept { return shift_; }

    void remember(const std::uint8_t* w, std::uint32_t key, const std::uint8_t* digest, bool missed) noexcept {
        entry& e = ring_[next_++ % ring_size];
        e.at = w, e.key = key, e.missed = missed;
        std::memcpy(e.digest, digest, digest_stride);
    }

private:
    // Whether the windows [a, a + len) and [a + k, a + k + len) are equal.
    bool equal(const std::uint8_t* a, std::size_t k, std::size_t len) noexcept {
        const std::uint8_t* end = a + len;
        if (k != shift_) shift_ = k, from_ = to_ = a, bad_ = nullptr;
        if (bad_ && bad_ >= a && bad_ < end) return false;  // known to differ in this range
        if (a < from_ || a > to_) from_ = to_ = a;
        while (to_ < end) {
            if (*to_ != to_[k]) {
                bad_ = to_;
                from_ = to_ = to_ + 1;
                return false;
            }
            ++to_;
        }
        return true;
    }

    static constexpr unsigned ring_size = 16;  // periods of up to 16 bytes
    entry ring_[ring_size];
    unsigned next_ = 0;
    // For every x in [from_, to_): x[0] == x[shift_]; bad_[0] != bad_[shift_].
    std::size_t shift_ = 0;
    const std::uint8_t* from_ = nullptr;
    const std::uint8_t* to_ = nullptr;
    const std::uint8_t* bad_ = nullptr;
};

}  // namespace rdelta::detail
