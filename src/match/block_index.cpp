// block_index.cpp - builds the weak-key index of a signature.
#include "block_index.hpp"

#include "checksum/weak_sum.hpp"

#include <rdelta/signature.hpp>

#include <algorithm>
#include <limits>

namespace rdelta {

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

    // Sort block numbers in place (no per-entry scratch: memory is the constraint
    // for signatures of millions of blocks).
    const std::size_t sl = idx.strong_len_;
    auto key_of = [&](std::uint32_t b) { return detail::weak_key(weak, sig.weak_sum(b)); };
    auto strong_cmp = [&](std::uint32_t a, std::uint32_t b) {
        return std::memcmp(sig.strong_sum(a).data(), sig.strong_sum(b).data(), sl);
    };
    idx.blocks_.resize(n);
    for (std::size_t i = 0; i < n; ++i) idx.blocks_[i] = static_cast<std::uint32_t>(i);
    std::sort(idx.blocks_.begin(), idx.blocks_.end(), [&](std::uint32_t a, std::uint32_t b) {
        const std::uint32_t ka = key_of(a), kb = key_of(b);
        const std::uint32_t ba = idx.bucket_of(ka), bb = idx.bucket_of(kb);
        if (ba != bb) return ba < bb;
        if (ka != kb) return ka < kb;
        const int c = strong_cmp(a, b);
        return c != 0 ? c < 0 : a < b;
    });
    // Of blocks with equal key and strong sum only the first (lowest) can match.
    if (!keep_duplicates) {
        const auto last = std::unique(idx.blocks_.begin(), idx.blocks_.end(), [&](std::uint32_t a, std::uint32_t b) {
            return key_of(a) == key_of(b) && strong_cmp(a, b) == 0;
        });
        idx.blocks_.erase(last, idx.blocks_.end());
    }
    idx.blocks_.shrink_to_fit();

    idx.dir_.assign((std::size_t{1} << bits) + 1, 0);
    for (const std::uint32_t b : idx.blocks_) ++idx.dir_[idx.bucket_of(key_of(b)) + 1];
    for (std::size_t b = 1; b < idx.dir_.size(); ++b) idx.dir_[b] += idx.dir_[b - 1];

    // About 64 filter bits per block, 8 KiB to 2 MiB: 0.04% of misses pass up to
    // 262144 blocks, 0.8% at a million. Each costs a search of the index's cache
    // misses; with 32 bits per block 0.18% passed, which cost more than the larger
    // filter's loads on data that does not match.
    int filter_bits = 16;
    while (filter_bits < 24 && (std::size_t{1} << filter_bits) < n * 64) ++filter_bits;
    const int words_log2 = filter_bits - 6;
    idx.filter_shift_ = static_cast<unsigned>(32 - words_log2);
    idx.filter_.assign(std::size_t{1} << words_log2, 0);
    for (const std::uint32_t b : idx.blocks_) {
        const std::uint32_t key = key_of(b);
        idx.filter_[filter_word(key, idx.filter_shift_)] |= filter_mask(key);
    }
    return idx;
}

}  // namespace rdelta
