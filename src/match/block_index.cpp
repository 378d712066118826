// block_index.cpp - builds the weak-key index of a signature.
//
// Entries are ordered by (bucket, key, strong sum, block number). A global sort
// with that comparator spent most of its time in cache misses (each comparison
// loads two blocks' weak sums from anywhere in the signature). Instead a
// counting sort by bucket places every block in its bucket in two sequential
// passes over the weak sums, and each bucket's few entries (about two) are then
// sorted with the full comparator. The order is a
// total one, so the result is the same as the global sort's. No per-entry
// scratch: dir_ holds the counts, then the write cursors, then the directory.
#include "block_index.hpp"

#include "checksum/weak_sum.hpp"

#include <rdelta/signature.hpp>

#include <algorithm>
#include <limits>

namespace rdelta {

namespace {

// Block numbers 0..n-1 into `blocks`, grouped by bucket, each bucket in block
// order. On return dir[b] is the end of bucket b (the start of bucket b + 1)
// for every bucket b, and dir[buckets] is n.
template <class BucketOf>
void scatter_by_bucket(std::size_t n, BucketOf&& bucket_of, std::vector<std::uint32_t>& dir,
                       std::vector<std::uint32_t>& blocks) {
    for (std::size_t i = 0; i < n; ++i) ++dir[bucket_of(i) + 1];
    for (std::size_t b = 1; b < dir.size(); ++b) dir[b] += dir[b - 1];
    // dir[b] is now the start of bucket b; used as its write cursor it ends at
    // the start of bucket b + 1.
    blocks.resize(n);
    for (std::size_t i = 0; i < n; ++i) blocks[dir[bucket_of(i)]++] = static_cast<std::uint32_t>(i);
}

// Sorts each bucket of scatter_by_bucket's layout with `less`, keeps only the
// first of entries `same` says are equal (unless keep_duplicates), packs the
// buckets to the front of `blocks` and turns `dir` into the directory: bucket b
// is blocks[dir[b] .. dir[b + 1]). Equal entries share a key, hence a bucket,
// and are adjacent once sorted, so removing them bucket by bucket is the same
// as removing them from the whole sorted array.
template <class Less, class Same>
void sort_buckets(std::vector<std::uint32_t>& dir, std::vector<std::uint32_t>& blocks, bool keep_duplicates,
                  Less&& less, Same&& same) {
    const std::size_t buckets = dir.size() - 1;
    std::uint32_t lo = 0, out = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
        const std::uint32_t hi = dir[b];
        dir[b] = out;
        const auto first = blocks.begin() + lo, last = blocks.begin() + hi;
        if (hi - lo > 1) std::sort(first, last, less);
        const auto kept = keep_duplicates ? last : std::unique(first, last, same);
        if (out != lo) std::move(first, kept, blocks.begin() + out);  // d_first outside [first, last)
        out += static_cast<std::uint32_t>(kept - first);
        lo = hi;
    }
    dir[buckets] = out;
    blocks.resize(out);
}

}  // namespace

result<block_index> block_index::build(const signature& sig, bool keep_duplicates) {
    const std::size_t n = sig.block_count();
    if (n >= std::numeric_limits<std::uint32_t>::max())
        return fail(errc::mem_error, "signature has too many blocks to index");
    const weak_kind weak = sig.params().format().weak;

    block_index idx;
    idx.keep_duplicates_ = keep_duplicates;
    int bits = 1;  // about two entries per bucket
    while ((std::size_t{2} << bits) < n) ++bits;
    idx.shift_ = 32 - bits;
    idx.strong_len_ = sig.params().strong_len;
    idx.strong_ = n ? sig.strong_sum(0).data() : nullptr;
    idx.weak_ = sig.weak_sums().data();
    idx.weak_kind_ = weak;

    const std::size_t sl = idx.strong_len_;
    auto key_of = [&](std::uint32_t b) { return detail::weak_key(weak, sig.weak_sum(b)); };
    auto strong_cmp = [&](std::uint32_t a, std::uint32_t b) {
        return std::memcmp(sig.strong_sum(a).data(), sig.strong_sum(b).data(), sl);
    };
    // Within a bucket: by key, then strong sum, then block number.
    auto less = [&](std::uint32_t a, std::uint32_t b) {
        const std::uint32_t ka = key_of(a), kb = key_of(b);
        if (ka != kb) return ka < kb;
        const int c = strong_cmp(a, b);
        return c != 0 ? c < 0 : a < b;
    };
    // Of blocks with equal key and strong sum only the first (lowest) can match.
    auto same = [&](std::uint32_t a, std::uint32_t b) { return key_of(a) == key_of(b) && strong_cmp(a, b) == 0; };

    idx.dir_.assign((std::size_t{1} << bits) + 1, 0);
    scatter_by_bucket(
        n, [&](std::size_t i) { return idx.bucket_of(key_of(static_cast<std::uint32_t>(i))); }, idx.dir_, idx.blocks_);
    sort_buckets(idx.dir_, idx.blocks_, keep_duplicates, less, same);
    idx.blocks_.shrink_to_fit();
    idx.build_filter(sig);
    return idx;
}

// About 64 filter bits per block, 8 KiB to 2 MiB: 0.04% of misses pass up to
// 262144 blocks, 0.8% at a million. Each costs a search of the index's cache
// misses; with 32 bits per block 0.18% passed, which cost more than the larger
// filter's loads on data that does not match. Sized by the signature's block
// count, and fed from every block in signature order: removed duplicates share
// their key with a kept entry, so the keys are the entries' keys, read
// sequentially.
void block_index::build_filter(const signature& sig) {
    const std::size_t n = sig.block_count();
    int filter_bits = 16;
    while (filter_bits < 24 && (std::size_t{1} << filter_bits) < n * 64) ++filter_bits;
    const int words_log2 = filter_bits - 6;
    filter_shift_ = static_cast<unsigned>(32 - words_log2);
    filter_.assign(std::size_t{1} << words_log2, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t key = detail::weak_key(weak_kind_, sig.weak_sum(i));
        filter_[filter_word(key, filter_shift_)] |= filter_mask(key);
    }
}

}  // namespace rdelta
