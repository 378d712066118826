// block_index.cpp - builds the weak-key index of a signature.
#include "block_index.hpp"

#include "weak_sum.hpp"

#include <rdelta/signature.hpp>

#include <algorithm>
#include <limits>

namespace rdelta {

result<block_index> block_index::build(const signature& sig) {
    const std::size_t n = sig.block_count();
    if (n >= std::numeric_limits<std::uint32_t>::max())
        return fail(errc::mem_error, "signature has too many blocks to index");
    const weak_kind weak = sig.params().format().weak;

    block_index idx;
    int bits = 1;
    while ((std::size_t{1} << bits) < n) ++bits;
    idx.shift_ = 32 - bits;
    idx.strong_len_ = sig.params().strong_len;
    idx.strong_ = n ? sig.strong_sum(0).data() : nullptr;

    struct entry {
        std::uint32_t bucket, key, block;
    };
    std::vector<entry> entries(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t key = detail::weak_key(weak, sig.weak_sum(i));
        entries[i] = {idx.bucket_of(key), key, static_cast<std::uint32_t>(i)};
    }
    const std::size_t sl = idx.strong_len_;
    auto strong_cmp = [&](const entry& a, const entry& b) {
        return std::memcmp(sig.strong_sum(a.block).data(), sig.strong_sum(b.block).data(), sl);
    };
    std::sort(entries.begin(), entries.end(), [&](const entry& a, const entry& b) {
        if (a.bucket != b.bucket) return a.bucket < b.bucket;
        if (a.key != b.key) return a.key < b.key;
        const int c = strong_cmp(a, b);
        return c != 0 ? c < 0 : a.block < b.block;
    });

    idx.dir_.assign((std::size_t{1} << bits) + 1, 0);
    idx.keys_.reserve(n);
    idx.blocks_.reserve(n);
    for (std::size_t k = 0; k < n; ++k) {
        // Of blocks with equal key and strong sum only the first (lowest) can match.
        if (k > 0 && entries[k].key == entries[k - 1].key && strong_cmp(entries[k], entries[k - 1]) == 0)
            continue;
        idx.keys_.push_back(entries[k].key);
        idx.blocks_.push_back(entries[k].block);
        ++idx.dir_[entries[k].bucket + 1];
    }
    for (std::size_t b = 1; b < idx.dir_.size(); ++b) idx.dir_[b] += idx.dir_[b - 1];

    // About 32 filter bits per block (a few % false positives), 8 KiB to 2 MiB.
    int filter_bits = 16;
    while (filter_bits < 24 && (std::size_t{1} << filter_bits) < n * 32) ++filter_bits;
    idx.filter_shift_ = 32 - filter_bits;
    idx.filter_.assign((std::size_t{1} << filter_bits) / 64, 0);
    for (const std::uint32_t key : idx.keys_) {
        const std::uint32_t bit = static_cast<std::uint32_t>((key * 0x9e3779b1ull & 0xffffffffu) >> idx.filter_shift_);
        idx.filter_[bit >> 6] |= std::uint64_t{1} << (bit & 63);
    }
    return idx;
}

}  // namespace rdelta
