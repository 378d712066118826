// test_window_skip_kernels.cpp - the window-skipping kernels (lane-parallel weak
// sums plus a vector prefilter test) against their scalar reference.
//
// Each SIMD kernel this CPU has, called directly, must return the same window and
// the same weak state as skip_rejected_scalar() with its group width, for both
// weak sums: window lengths 1-1000, every start within a few groups of the limit,
// filters that pass nothing, everything, a few percent of keys at random, or just
// the word of one chosen window's key (so each lane of a group is the first hit in
// turn), windows whose digest is 0 (whose key is 0xffffffff), and data ending
// right before a PROT_NONE page. The reference's filter test must equal
// block_index::may_contain of a real index, and skip_rejected() at every ISA level
// must stop where the plain one-window-at-a-time loop would.
#include "guarded_region.hpp"
#include "isa_levels.hpp"
#include "test_helpers.hpp"

#include "checksum/weak_sum.hpp"
#include "cpu/cpu_features.hpp"
#include "match/block_index.hpp"
#include "match/window_skip.hpp"
#include "match/window_skip_kernels.hpp"

#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace rdelta;
using namespace rdelta::detail;

namespace {

struct skip_kernel {
    const char* name;
    isa needs;
    std::size_t lanes;
    rabinkarp_skip_fn rabinkarp;
    rollsum_skip_fn rollsum;
};

const skip_kernel skip_kernels[] = {
    {"avx2", isa::avx2, skip_lanes_avx2, rabinkarp_skip_avx2, rollsum_skip_avx2},
    {"avx512", isa::avx512, skip_lanes_avx512, rabinkarp_skip_avx512, rollsum_skip_avx512},
};

// The kernels this CPU runs (x86 ones: on other CPUs, none).
std::vector<const skip_kernel*> supported() {
    std::vector<const skip_kernel*> out;
#if !defined(__aarch64__)
    for (const skip_kernel& k : skip_kernels)
        if (detected_isa() >= k.needs) out.push_back(&k);
#endif
    return out;
}

// A filter of 2^log2 words, and the view the kernels take.
struct test_filter {
    std::vector<std::uint64_t> words;
    unsigned shift;

    explicit test_filter(unsigned log2, std::uint64_t fill = 0)
        : words(std::size_t{1} << log2, fill), shift(32 - log2) {}
    prefilter_view view() const { return {words.data(), shift}; }
    std::uint64_t& word_of(std::uint32_t key) { return words[(key * prefilter_word_mult) >> shift]; }

    // Each bit set with probability about `percent` / 100.
    void randomize(unsigned percent, std::uint64_t seed) {
        std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 7;
        for (std::uint64_t& w : words) {
            w = 0;
            for (int b = 0; b < 64; ++b) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                if (x % 100 < percent) w |= std::uint64_t{1} << b;
            }
        }
    }
};

struct outcome {
    std::size_t pos;
    std::uint32_t a, b;  // RabinKarp: hash, 0; rollsum: s1, s2
    bool operator==(const outcome&) const = default;
};

doctest::String toString(const outcome& o) {
    return (std::to_string(o.pos) + " {" + std::to_string(o.a) + ", " + std::to_string(o.b) + "}").c_str();
}

rabinkarp rk_state(std::uint32_t hash, std::size_t n) {
    rabinkarp w;
    w.hash = hash, w.mult_pow = rabinkarp::power(n), w.count = n;
    return w;
}

rollsum rs_state(std::uint32_t s1, std::uint32_t s2, std::size_t n) {
    rollsum w;
    w.s1 = s1, w.s2 = s2, w.count = n;
    return w;
}

outcome reference(const test_filter& f, const std::uint8_t* d, std::size_t p, std::size_t limit, std::size_t lanes,
                  rabinkarp w) {
    const std::size_t pos = skip_rejected_scalar(f.view(), d, p, limit, lanes, w);
    return {pos, w.hash, 0};
}

outcome reference(const test_filter& f, const std::uint8_t* d, std::size_t p, std::size_t limit, std::size_t lanes,
                  rollsum w) {
    const std::size_t pos = skip_rejected_scalar(f.view(), d, p, limit, lanes, w);
    return {pos, w.s1, w.s2};
}

outcome kernel(const skip_kernel& k, const test_filter& f, const std::uint8_t* d, std::size_t p, std::size_t limit,
               rabinkarp w) {
    std::uint32_t hash = w.hash;
    const std::size_t pos = k.rabinkarp(f.view(), d, p, limit, w.count, w.mult_pow, &hash);
    return {pos, hash, 0};
}

outcome kernel(const skip_kernel& k, const test_filter& f, const std::uint8_t* d, std::size_t p, std::size_t limit,
               rollsum w) {
    std::uint32_t s1 = w.s1, s2 = w.s2;
    const std::size_t pos = k.rollsum(f.view(), d, p, limit, w.count, &s1, &s2);
    return {pos, s1, s2};
}

// Both weak sums of the window at p, from the data.
rabinkarp rk_at(const std::uint8_t* d, std::size_t p, std::size_t n) {
    rabinkarp w;
    w.init(d + p, n);
    return w;
}

rollsum rs_at(const std::uint8_t* d, std::size_t p, std::size_t n) {
    rollsum w;
    w.init(d + p, n);
    return w;
}

const std::size_t window_lengths[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 100, 1000};

// Kernel == reference for states rolled from the data at p and the limits p + 0 .. p + 11 groups + 1.
template <class State, class StateAt>
void compare_starts(const skip_kernel& k, const test_filter& f, const std::uint8_t* d, std::size_t size, std::size_t n,
                    StateAt state_at) {
    for (std::size_t p : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{33}}) {
        const State w = state_at(d, p, n);
        for (std::size_t span = 0; span <= 11 * k.lanes + 1 && p + span + n <= size; ++span) {
            CAPTURE(p);
            CAPTURE(span);
            CHECK(kernel(k, f, d, p, p + span, w) == reference(f, d, p, p + span, k.lanes, w));
        }
        // A long run to the end of the data.
        const std::size_t limit = size - n;
        CHECK(kernel(k, f, d, p, limit, w) == reference(f, d, p, limit, k.lanes, w));
    }
}

}  // namespace

TEST_CASE("window-skip kernels equal the scalar reference (filters of every density)") {
    const auto ks = supported();
    const test::bytes data = test::random_bytes(6000, 21);
    const test::bytes low = test::random_bytes(6000, 22, 3);  // runs and repeats
    for (const skip_kernel* k : ks) {
        CAPTURE(std::string(k->name));
        for (unsigned percent : {0u, 100u, 20u, 30u, 45u}) {
            test_filter f(percent == 45 ? 10 : 16);
            f.randomize(percent, percent + 1);
            CAPTURE(percent);
            for (const test::bytes* bytes : {&data, &low})
                for (std::size_t n : window_lengths) {
                    CAPTURE(n);
                    compare_starts<rabinkarp>(*k, f, bytes->data(), bytes->size(), n, rk_at);
                    compare_starts<rollsum>(*k, f, bytes->data(), bytes->size(), n, rs_at);
                }
        }
    }
    MESSAGE("window-skip kernels tested: " << ks.size());
}

TEST_CASE("window-skip kernels stop at the one window the filter lets through, in every lane") {
    const test::bytes data = test::random_bytes(3000, 23);
    const std::uint8_t* d = data.data();
    for (const skip_kernel* k : supported()) {
        CAPTURE(std::string(k->name));
        for (std::size_t n : {std::size_t{1}, std::size_t{16}, std::size_t{100}, std::size_t{1000}}) {
            CAPTURE(n);
            const std::size_t p = 3, limit = p + 12 * k->lanes + 3;  // a first group, a batch of 8, single groups
            rabinkarp rk = rk_at(d, p, n);
            rollsum rs = rs_at(d, p, n);
            for (std::size_t j = 0; j < limit - p; ++j) {
                CAPTURE(j);
                test_filter frk(12), frs(12);
                frk.word_of(weak_key<weak_kind::rabinkarp>(rk.digest())) = ~std::uint64_t{0};
                frs.word_of(weak_key<weak_kind::rollsum>(rs.digest())) = ~std::uint64_t{0};
                const outcome want_rk = reference(frk, d, p, limit, k->lanes, rk_at(d, p, n));
                const outcome want_rs = reference(frs, d, p, limit, k->lanes, rs_at(d, p, n));
                CHECK(kernel(*k, frk, d, p, limit, rk_at(d, p, n)) == want_rk);
                CHECK(kernel(*k, frs, d, p, limit, rs_at(d, p, n)) == want_rs);
                // Windows p+1 .. in whole groups before limit are tested (p is the caller's).
                if (j >= 1 && j <= (limit - p - 1) / k->lanes * k->lanes) {
                    CHECK(want_rk.pos <= p + j);
                    CHECK(want_rs.pos <= p + j);
                }
                rk.rotate(d[p + j], d[p + j + n]);
                rs.rotate(d[p + j], d[p + j + n]);
            }
        }
    }
}

TEST_CASE("window-skip kernels: a digest of 0 has the key 0xffffffff") {
    const test::bytes data = test::random_bytes(2000, 24);
    const std::uint8_t* d = data.data();
    const std::size_t n = 64;
    for (const skip_kernel* k : supported()) {
        CAPTURE(std::string(k->name));
        test_filter f(12);
        f.word_of(0xffffffffu) = ~std::uint64_t{0};  // word 0 (key 0's) stays empty
        REQUIRE(f.word_of(0) == 0);
        for (std::size_t j = 1; j <= 2 * k->lanes; ++j) {  // the windows two groups test
            CAPTURE(j);
            // Start states chosen so that window j's digest is 0: roll from 0 first.
            rabinkarp rk = rk_state(0, n);
            rollsum rs = rs_state(0, 0, n);
            for (std::size_t i = 0; i < j; ++i) rk.rotate(d[i], d[i + n]), rs.rotate(d[i], d[i + n]);
            std::uint32_t inv = 1;
            for (std::size_t i = 0; i < j; ++i) inv *= rabinkarp::inv_mult;
            const rabinkarp rk0 = rk_state(0u - rk.hash * inv, n);
            const std::uint32_t s1 = 0u - rs.s1;
            const rollsum rs0 = rs_state(s1, 0u - rs.s2 - static_cast<std::uint32_t>(j) * s1, n);
            const outcome want_rk = reference(f, d, 0, 3 * k->lanes, k->lanes, rk0);
            const outcome want_rs = reference(f, d, 0, 3 * k->lanes, k->lanes, rs0);
            CHECK(want_rk.pos <= j);
            CHECK(want_rs.pos <= j);
            CHECK(kernel(*k, f, d, 0, 3 * k->lanes, rk0) == want_rk);
            CHECK(kernel(*k, f, d, 0, 3 * k->lanes, rs0) == want_rs);
        }
    }
}

TEST_CASE("window-skip kernels never read past the last window's byte (PROT_NONE guard page)") {
    const test::guarded_region region(8192);
    const test::bytes fill = test::random_bytes(region.usable, 25);
    std::memcpy(region.base, fill.data(), region.usable);
    for (const skip_kernel* k : supported()) {
        CAPTURE(std::string(k->name));
        test_filter f(16);
        f.randomize(10, 3);  // almost nothing passes: the kernel runs to the limit
        for (std::size_t n : window_lengths) {
            for (std::size_t span = 0; span <= 12 * k->lanes; ++span) {  // batches of 8 groups too
                CAPTURE(n);
                CAPTURE(span);
                // d[limit - 1 + n] is the last readable byte.
                const std::size_t limit = region.usable - n, p = limit - span;
                CHECK(kernel(*k, f, region.base, p, limit, rk_at(region.base, p, n)) ==
                      reference(f, region.base, p, limit, k->lanes, rk_at(region.base, p, n)));
                CHECK(kernel(*k, f, region.base, p, limit, rs_at(region.base, p, n)) ==
                      reference(f, region.base, p, limit, k->lanes, rs_at(region.base, p, n)));
            }
        }
    }
}

TEST_CASE("the reference's filter test is block_index::may_contain") {
    for (weak_kind weak : {weak_kind::rabinkarp, weak_kind::rollsum}) {
        CAPTURE(static_cast<int>(weak));
        const test::bytes basis = test::random_bytes(4096 * 64, 26);
        const auto m = weak == weak_kind::rollsum ? magic::md4_sig : magic::rk_blake2_sig;
        auto bytes = make_signature(basis, {static_cast<std::uint32_t>(m), 64, 8});
        REQUIRE(bytes.ok());
        auto sig = load_signature(*bytes);
        REQUIRE(sig.ok());
        auto built = block_index::build(*sig);
        REQUIRE(built.ok());
        const block_index& index = *built;
        std::size_t passed = 0;
        for (std::size_t b = 0; b < sig->block_count(); ++b) {  // every block's key passes
            const std::uint32_t key = detail::weak_key(weak, sig->weak_sum(b));
            CHECK(block_index::passes(index.prefilter(), key));
            CHECK(index.may_contain(key));
        }
        for (std::uint32_t x = 1; x < 200000; ++x) {
            const std::uint32_t key = x * 0x2545f491u;
            CHECK(block_index::passes(index.prefilter(), key) == index.may_contain(key));
            passed += index.may_contain(key);
        }
        CHECK(passed < 200000 / 20);
    }
}

TEST_CASE("skip_rejected at every ISA level stops where the one-window loop would") {
    const test::forced_isa_reset reset;
    const test::bytes data = test::random_bytes(20000, 27);
    const std::uint8_t* d = data.data();
    test_filter f(14);
    f.randomize(25, 9);  // about 1.5% pass
    reset_forced_isa();
    const isa top = active_isa();
    for (isa level : isa_ladder()) {
        if (level > top) break;
        force_isa(level);
        CAPTURE(std::string(isa_name(level)));
        const std::size_t lanes = level >= isa::avx512 ? skip_lanes_avx512 : skip_lanes_avx2;
        for (std::size_t n : window_lengths) {
            CAPTURE(n);
            const std::size_t limit = data.size() - n;
            for (std::size_t p = 0; p < limit;) {
                CAPTURE(p);
                // The plain loop: the first passing window after p, or limit.
                std::size_t want = p + 1;
                rabinkarp w = rk_at(d, p, n);
                w.rotate(d[p], d[p + n]);
                while (want < limit && !block_index::passes(f.view(), weak_key<weak_kind::rabinkarp>(w.digest())))
                    w.rotate(d[want], d[want + n]), ++want;
                rabinkarp rk = rk_at(d, p, n);
                rollsum rs = rs_at(d, p, n);
                const std::size_t at = skip_rejected(f.view(), d, p, limit, rk);
                const std::size_t at_rs = skip_rejected(f.view(), d, p, limit, rs);
                CHECK(rk.digest() == rk_at(d, at, n).digest());
                CHECK(rs.digest() == rs_at(d, at_rs, n).digest());
                if (level != isa::avx2 && level != isa::avx512) {
                    CHECK(at == p);  // no kernel: the caller's loop does it all
                } else if (block_index::passes(f.view(), weak_key<weak_kind::rabinkarp>(rk.digest())) && at > p) {
                    CHECK(at == want);
                } else {  // stopped short: less than a group left
                    CHECK(at <= want);
                    CHECK(limit - at <= lanes);
                }
                if (want >= limit) break;
                p = want;
            }
        }
    }
}
