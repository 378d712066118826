// block_index.hpp - lookup of signature blocks by weak-sum key and strong sum.
//
// librsync keeps only the first of several blocks with equal key and equal strong
// sum, and a lookup returns the block whose key and strong-sum prefix equal the
// window's. So within one key, stored strong sums are unique and lookup is an exact
// search. Entries are sorted by (bucket, key, strong sum); a directory gives each
// bucket's range; long runs are binary-searched, so crafted signatures with many
// equal weak sums cannot make lookups linear. Only block numbers are stored per
// entry (keys are derived from the signature's weak sums), so the index costs
// about 10 bytes per block on top of the signature.
#pragma once

#include "checksum/weak_sum.hpp"
#include "prefilter.hpp"

#include <rdelta/error.hpp>
#include <rdelta/format.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace rdelta {

class signature;

class block_index {
public:
    /// Index the blocks of `sig`; `sig` must not change while the index is used.
    /// With `keep_duplicates`, blocks equal to an earlier one stay findable (for
    /// in-place-safe deltas, which may not use an earlier block).
    static result<block_index> build(const signature& sig, bool keep_duplicates = false);

    /// Prefilter: false means no block has this key. A blocked Bloom filter: each
    /// key sets 4 bits of one 64-bit word (prefilter.hpp), so a test is one memory
    /// access, and with 16 to 64 filter bits per block under 1% of misses pass (one
    /// bit per key let 6% through for a million blocks, each costing an index search
    /// of cache misses).
    bool may_contain(std::uint32_t key) const noexcept { return passes(prefilter(), key); }

    /// Whether `key` passes the prefilter `f` (the words of may_contain's filter).
    static bool passes(detail::prefilter_view f, std::uint32_t key) noexcept {
        const std::uint64_t mask = filter_mask(key);
        return (f.words[filter_word(key, f.shift)] & mask) == mask;
    }

    /// The prefilter's words, for the kernels that test many keys at once.
    detail::prefilter_view prefilter() const noexcept { return {filter_.data(), filter_shift_}; }

    /// Start loading the filter word of `key` (may_contain soon after is then cheap:
    /// a large filter misses the caches, and several loads in flight overlap).
    void prefetch(std::uint32_t key) const noexcept { __builtin_prefetch(&filter_[filter_word(key, filter_shift_)]); }

    /// Whether some block has this key (exact, unlike may_contain).
    bool has_key(std::uint32_t key) const noexcept {
        const std::uint32_t b = bucket_of(key);
        const std::uint32_t lo = dir_[b], hi = dir_[b + 1];
        if (lo == hi) return false;
        const std::uint32_t first = lower_key(lo, hi, key);
        return first != hi && key_at(first) == key;
    }

    /// Number of distinct (key, strong sum) entries.
    std::size_t size() const noexcept { return blocks_.size(); }

    /// The first block, at or after `min_block`, matching `key` and the strong sum,
    /// or -1. `strong()` returns the window's full digest and is called at most once,
    /// only if the key is present. Without kept duplicates each (key, strong sum)
    /// has one block, the first in the signature.
    template <class StrongFn>
    std::int64_t find(std::uint32_t key, StrongFn&& strong, std::uint64_t min_block = 0) const {
        const std::uint32_t b = bucket_of(key);
        std::uint32_t lo = dir_[b], hi = dir_[b + 1];
        if (lo == hi) return -1;
        lo = lower_key(lo, hi, key);
        if (lo == hi || key_at(lo) != key) return -1;
        hi = upper_key(lo, hi, key);
        const std::uint8_t* digest = strong();
        // Entries of one key are sorted by strong sum, then block number.
        const std::uint32_t first = lower_strong(lo, hi, digest);
        if (first == hi || std::memcmp(strong_of(first), digest, strong_len_) != 0) return -1;
        if (blocks_[first] >= min_block) return blocks_[first];
        const std::uint32_t last = upper_strong(first, hi, digest);
        const auto it = std::lower_bound(blocks_.begin() + first, blocks_.begin() + last, min_block,
                                         [](std::uint32_t blk, std::uint64_t m) { return blk < m; });
        return it == blocks_.begin() + last ? -1 : static_cast<std::int64_t>(*it);
    }

    /// Whether blocks equal to an earlier one were kept (built for in-place-safe deltas).
    bool keeps_duplicates() const noexcept { return keep_duplicates_; }

    std::size_t memory_bytes() const noexcept {
        return dir_.capacity() * 4 + blocks_.capacity() * 4 + filter_.capacity() * 8;
    }

private:
    friend struct block_index_layout;  // tests compare a build's layout with a reference

    void build_filter(const signature& sig);

    static std::uint32_t filter_word(std::uint32_t key, unsigned shift) noexcept {
        return (key * detail::prefilter_word_mult) >> shift;
    }
    static std::uint64_t filter_mask(std::uint32_t key) noexcept {
        const std::uint32_t m = (key * detail::prefilter_bit_mult) >> detail::prefilter_bit_shift;
        return (std::uint64_t{1} << (m & 63)) | (std::uint64_t{1} << ((m >> 6) & 63)) |
               (std::uint64_t{1} << ((m >> 12) & 63)) | (std::uint64_t{1} << (m >> 18));
    }
    std::uint32_t bucket_of(std::uint32_t key) const noexcept {
        return static_cast<std::uint32_t>((key * 0x9e3779b1ull & 0xffffffffu) >> shift_);
    }
    const std::uint8_t* strong_of(std::uint32_t pos) const noexcept {
        return strong_ + std::size_t{blocks_[pos]} * strong_len_;
    }
    std::uint32_t lower_strong(std::uint32_t lo, std::uint32_t hi, const std::uint8_t* digest) const noexcept {
        while (lo < hi) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            (std::memcmp(strong_of(mid), digest, strong_len_) < 0 ? lo : hi) =
                std::memcmp(strong_of(mid), digest, strong_len_) < 0 ? mid + 1 : mid;
        }
        return lo;
    }
    std::uint32_t upper_strong(std::uint32_t lo, std::uint32_t hi, const std::uint8_t* digest) const noexcept {
        while (lo < hi) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            (std::memcmp(strong_of(mid), digest, strong_len_) <= 0 ? lo : hi) =
                std::memcmp(strong_of(mid), digest, strong_len_) <= 0 ? mid + 1 : mid;
        }
        return lo;
    }
    std::uint32_t key_at(std::uint32_t pos) const noexcept { return detail::weak_key(weak_kind_, weak_[blocks_[pos]]); }
    std::uint32_t lower_key(std::uint32_t lo, std::uint32_t hi, std::uint32_t key) const noexcept {
        while (lo < hi && hi - lo <= 8 && key_at(lo) < key) ++lo;
        while (lo < hi && key_at(lo) < key) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            (key_at(mid) < key ? lo : hi) = key_at(mid) < key ? mid + 1 : mid;
        }
        return lo;
    }
    std::uint32_t upper_key(std::uint32_t lo, std::uint32_t hi, std::uint32_t key) const noexcept {
        std::uint32_t first = lo;
        while (first < hi && key_at(first) == key && first - lo < 8) ++first;
        if (first == hi || key_at(first) != key) return first;
        while (first < hi) {  // long run: binary search its end
            const std::uint32_t mid = first + (hi - first) / 2;
            (key_at(mid) == key ? first : hi) = key_at(mid) == key ? mid + 1 : mid;
        }
        return first;
    }

    int shift_ = 31;
    unsigned filter_shift_ = 31;  // word index: the top bits of a product of the key
    std::vector<std::uint64_t> filter_;
    const std::uint8_t* strong_ = nullptr;
    const std::uint32_t* weak_ = nullptr;
    weak_kind weak_kind_ = weak_kind::rabinkarp;
    std::size_t strong_len_ = 0;
    std::vector<std::uint32_t> dir_;
    std::vector<std::uint32_t> blocks_;  // block numbers sorted by (bucket, key, strong sum)
    bool keep_duplicates_ = false;
};

}  // namespace rdelta
