// test_block_index.cpp - block_index::build against a plain reference build.
//
// The reference is the straightforward construction: sort all block numbers by
// (bucket, key, strong sum, block number), drop all but the first of equal
// (key, strong sum) entries unless duplicates are kept, count the directory from
// the entries, and set the prefilter from the entries' keys. build() must give
// the same layout entry for entry, on signatures made to have crowded buckets,
// equal keys from different weak sums, and repeated (key, strong sum) pairs.
#include "test_helpers.hpp"

#include "checksum/weak_sum.hpp"
#include "match/block_index.hpp"

#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

namespace rdelta {

// The test's view of an index's private layout (a friend of block_index).
struct block_index_layout {
    static const std::vector<std::uint32_t>& blocks(const block_index& i) { return i.blocks_; }
    static const std::vector<std::uint32_t>& dir(const block_index& i) { return i.dir_; }
    static const std::vector<std::uint64_t>& filter(const block_index& i) { return i.filter_; }
    static unsigned filter_shift(const block_index& i) { return i.filter_shift_; }
    static std::uint32_t bucket_of(const block_index& i, std::uint32_t key) { return i.bucket_of(key); }
    static std::uint32_t filter_word(std::uint32_t key, unsigned shift) { return block_index::filter_word(key, shift); }
    static std::uint64_t filter_mask(std::uint32_t key) { return block_index::filter_mask(key); }
};

}  // namespace rdelta

using namespace rdelta;
using layout = rdelta::block_index_layout;

namespace {

struct reference_index {
    std::vector<std::uint32_t> blocks, dir;
    std::vector<std::uint64_t> filter;
};

// The reference build, with the bucket function and filter geometry of `built`.
reference_index reference_build(const signature& sig, bool keep_duplicates, const block_index& built) {
    const weak_kind weak = sig.params().format().weak;
    const std::size_t sl = sig.params().strong_len;
    const auto key_of = [&](std::uint32_t b) { return detail::weak_key(weak, sig.weak_sum(b)); };
    const auto bucket_of = [&](std::uint32_t b) { return layout::bucket_of(built, key_of(b)); };
    const auto strong_cmp = [&](std::uint32_t a, std::uint32_t b) {
        return std::memcmp(sig.strong_sum(a).data(), sig.strong_sum(b).data(), sl);
    };
    reference_index ref;
    ref.blocks.resize(sig.block_count());
    std::iota(ref.blocks.begin(), ref.blocks.end(), 0u);
    std::sort(ref.blocks.begin(), ref.blocks.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (bucket_of(a) != bucket_of(b)) return bucket_of(a) < bucket_of(b);
        if (key_of(a) != key_of(b)) return key_of(a) < key_of(b);
        const int c = strong_cmp(a, b);
        return c != 0 ? c < 0 : a < b;
    });
    if (!keep_duplicates) {
        const auto last = std::unique(ref.blocks.begin(), ref.blocks.end(), [&](std::uint32_t a, std::uint32_t b) {
            return key_of(a) == key_of(b) && strong_cmp(a, b) == 0;
        });
        ref.blocks.erase(last, ref.blocks.end());
    }
    ref.dir.assign(layout::dir(built).size(), 0);
    for (const std::uint32_t b : ref.blocks) ++ref.dir[bucket_of(b) + 1];
    for (std::size_t b = 1; b < ref.dir.size(); ++b) ref.dir[b] += ref.dir[b - 1];
    ref.filter.assign(layout::filter(built).size(), 0);
    for (const std::uint32_t b : ref.blocks)
        ref.filter[layout::filter_word(key_of(b), layout::filter_shift(built))] |= layout::filter_mask(key_of(b));
    return ref;
}

void check_against_reference(const signature& sig) {
    for (const bool keep : {false, true}) {
        CAPTURE(keep);
        auto built = block_index::build(sig, keep);
        REQUIRE(built.ok());
        const reference_index ref = reference_build(sig, keep, *built);
        REQUIRE(built->size() == ref.blocks.size());
        CHECK(layout::blocks(*built) == ref.blocks);
        CHECK(layout::dir(*built) == ref.dir);
        CHECK(layout::filter(*built) == ref.filter);
    }
}

// A signature of n blocks: block i gets weak sum weaks[r % weaks.size()] and a
// strong sum drawn from `strongs` distinct values, r and the draw pseudo-random.
signature make_sig(magic m, std::uint32_t strong_len, std::size_t n, const std::vector<std::uint32_t>& weaks,
                   std::size_t strongs, std::uint64_t seed) {
    signature sig(sig_params{static_cast<std::uint32_t>(m), 1024, strong_len});
    const test::bytes pick = test::random_bytes(2 * n, seed);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t weak = weaks[(pick[2 * i] * 256u + pick[2 * i + 1]) % weaks.size()];
        const test::bytes strong = test::random_bytes(strong_len, seed * 7919 + (i * 2654435761u) % strongs);
        REQUIRE(sig.add_block(weak, strong));
    }
    return sig;
}

std::vector<std::uint32_t> random_weaks(std::size_t count, std::uint64_t seed) {
    const test::bytes r = test::random_bytes(4 * count, seed);
    std::vector<std::uint32_t> weaks(count);
    for (std::size_t i = 0; i < count; ++i) std::memcpy(&weaks[i], &r[4 * i], 4);
    return weaks;
}

}  // namespace

TEST_CASE("block_index::build lays out entries exactly as the reference sort") {
    for (const magic m : {magic::rk_blake2_sig, magic::md4_sig}) {
        CAPTURE(static_cast<std::uint32_t>(m));
        for (const std::size_t n : {0, 1, 2, 3, 17, 1000, 5000, 70000}) {
            CAPTURE(n);
            // Distinct keys: about two entries per bucket, as in real signatures.
            check_against_reference(make_sig(m, 32, n, random_weaks(n + 1, 10 + n), n + 1, 1));
            // Crowded buckets: a handful of keys, all strong sums different.
            check_against_reference(make_sig(m, 32, n, random_weaks(5, 20 + n), n + 1, 2));
            // Repeated (key, strong sum) pairs: 40 keys times 6 strong sums.
            check_against_reference(make_sig(m, 8, n, random_weaks(40, 30 + n), 6, 3));
            // Every block the same.
            check_against_reference(make_sig(m, 32, n, {0x12345678}, 1, 4));
            // One-byte strong sums: equal strong sums among distinct random bytes.
            check_against_reference(make_sig(m, 1, n, random_weaks(n / 8 + 1, 40 + n), n + 1, 5));
        }
        // Different weak sums, one key: under RabinKarp 0 and 0xffffffff both
        // become key 0xffffffff (0 is not a key).
        check_against_reference(make_sig(m, 4, 3000, {0, 0xffffffffu, 1, 2}, 50, 6));
    }
}
