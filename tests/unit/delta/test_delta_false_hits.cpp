// test_delta_false_hits.cpp - delta generation against weak sums that hit and miss:
// the strong-hash work budget, hits hashed in batches, windows equal to earlier
// misses and periodic data passed over, each with the delta unchanged.
#include "test_helpers.hpp"

#include "test_hooks_on.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>

#include <doctest/doctest.h>

#include <vector>

using namespace rdelta;
namespace hooks = rdelta::detail::test_hooks;  // events counted (tests/hooks)

namespace {
// A signature whose records have the RabinKarp weak sums of the windows of `data`
// at offsets 0..count-1 and all-zero strong sums: every such window hits, none matches.
test::bytes crafted_signature(const test::bytes& data, std::uint32_t block, std::size_t count) {
    constexpr std::uint32_t mult = 0x08104225u;
    test::bytes sig = {0x72,
                       0x73,
                       0x01,
                       0x47,
                       static_cast<std::uint8_t>(block >> 24),
                       static_cast<std::uint8_t>(block >> 16),
                       static_cast<std::uint8_t>(block >> 8),
                       static_cast<std::uint8_t>(block),
                       0,
                       0,
                       0,
                       32};
    std::uint32_t h = 1, top = 1;
    for (std::uint32_t i = 0; i < block; ++i) h = h * mult + data[i], top *= mult;
    for (std::size_t i = 0; i < count; ++i) {
        for (int s = 24; s >= 0; s -= 8) sig.push_back(static_cast<std::uint8_t>(h >> s));
        sig.insert(sig.end(), 32, 0);
        h = h * mult + data[i + block] - top * (data[i] + mult - 1);
    }
    return sig;
}
}  // namespace

TEST_CASE("work budget: a crafted signature fails with mem_error, equal windows are not hashed again") {
    const test::bytes next = test::random_bytes(96 << 10, 13);
    auto sig = load_signature(crafted_signature(next, 4096, 40000));
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index().ok());
    // 40000 windows of 4 KiB hashed: more than 1 x input + 64 MiB + 16 blocks.
    delta_options opts;
    opts.max_strong_work = 1;
    auto over = make_delta(*sig, next, 0, opts);
    REQUIRE_FALSE(over.ok());
    CHECK(over.err().code == errc::mem_error);
    opts.max_strong_work = 0;  // no budget: all literal, as rdiff
    auto unlimited = make_delta(*sig, next, 0, opts);
    REQUIRE(unlimited.ok());
    auto patched = apply_patch(test::bytes(4096), *unlimited);
    REQUIRE(patched.ok());
    CHECK(*patched == next);

    // 4 MiB of 'A' against the weak sum of a block of 'A's: one window is hashed.
    const test::bytes run(4 << 20, 'A');
    auto run_sig = load_signature(crafted_signature(run, 1 << 20, 1));
    REQUIRE(run_sig.ok());
    REQUIRE(run_sig->build_index().ok());
    opts.max_strong_work = 1;
    auto j = make_delta_job(*run_sig, opts);
    test::bytes out(5 << 20);
    buffers io{run.data(), run.size(), true, out.data(), out.size()};
    auto status = j->iterate(io);
    REQUIRE(status.ok());
    CHECK(*status == job_status::done);
    CHECK(j->stats().strong_calcs <= 2);  // once in the scan, once at the start of the tail
}

namespace {
// Signature records for the windows of `data` at `at` (weak sums of `kind`'s
// format, zero strong sums): each of those windows hits and none matches.
void append_false_hits(test::bytes& sig, const test::bytes& data, std::uint32_t block, std::size_t strong_len,
                       bool rabinkarp, const std::vector<std::size_t>& at) {
    for (const std::size_t pos : at) {
        std::uint32_t h = 1, a = 0, b = 0;
        for (std::uint32_t i = 0; i < block; ++i) {
            h = h * 0x08104225u + data[pos + i];
            a += data[pos + i] + 31u, b += a;
        }
        const std::uint32_t weak = rabinkarp ? h : (b << 16) | (a & 0xffff);
        for (int s = 24; s >= 0; s -= 8) sig.push_back(static_cast<std::uint8_t>(weak >> s));
        sig.insert(sig.end(), strong_len, 0);
    }
}
}  // namespace

TEST_CASE("weak hits that miss are hashed in batches from further ahead, with the delta unchanged") {
    // Stretches of unrelated data with a weak hit that misses every 2-5 KiB (crafted
    // records), between copies of basis blocks: after a few misses the search hashes
    // the hits of up to 1 MiB ahead together, across the matches that follow.
    const std::uint32_t block = 1024;
    const test::bytes basis = test::random_bytes(256 << 10, 41);
    test::bytes next;
    std::vector<std::size_t> hits;
    for (int part = 0; part < 6; ++part) {
        const test::bytes unrelated = test::random_bytes((100 + 37 * part) << 10, 50 + part);
        for (std::size_t at = 1000 + 77 * part; at + block < unrelated.size(); at += 2000 + 997 * (at % 4))
            hits.push_back(next.size() + at);
        next.insert(next.end(), unrelated.begin(), unrelated.end());
        const std::size_t from = (part * 40u) << 10;
        next.insert(next.end(), basis.begin() + static_cast<std::ptrdiff_t>(from),
                    basis.begin() + static_cast<std::ptrdiff_t>(from + (part + 1) * 5000));
    }
    for (const std::uint32_t m : {0x72730147u, 0x72730136u}) {
        CAPTURE(m);
        const std::size_t strong_len = m == 0x72730136u ? 16 : 32;
        auto plain = make_signature(basis, {m, block, static_cast<std::uint32_t>(strong_len)});
        REQUIRE(plain.ok());
        test::bytes crafted = *plain;
        append_false_hits(crafted, next, block, strong_len, m == 0x72730147u, hits);
        auto plain_sig = load_signature(*plain);
        auto crafted_sig = load_signature(crafted);
        REQUIRE(plain_sig.ok());
        REQUIRE(crafted_sig.ok());
        // The crafted records come after the real blocks and never match: the same delta.
        auto want = make_delta(*plain_sig, next, 0, delta_options{{1}});
        REQUIRE(want.ok());
        for (unsigned threads : {1u, 2u}) {
            CAPTURE(threads);
            const auto batches_before = hooks::counted(hooks::event::candidate_batch);
            auto got = make_delta(*crafted_sig, next, 0, delta_options{{threads}});
            REQUIRE(got.ok());
            CHECK(*got == *want);
            CHECK(hooks::counted(hooks::event::candidate_batch) > batches_before);
        }
        auto rebuilt = apply_patch(basis, *want);
        REQUIRE(rebuilt.ok());
        CHECK(*rebuilt == next);
    }
}

TEST_CASE("tail windows with weak hits are hashed in batches of different lengths, with the delta unchanged") {
    // Crafted records with the weak sums of 40 suffixes of the new data (the windows
    // the scan tries at the end of input), wrong strong sums, and one record that is
    // the suffix at 2500: the delta is the literal before it and a COPY of that record.
    const std::uint32_t block = 1024;
    const test::bytes next = test::random_bytes(3000, 77);
    const std::size_t match_at = 2500;
    for (const std::uint32_t m : {0x72730147u, 0x72730137u, 0x72730146u, 0x72730136u}) {
        CAPTURE(m);
        const std::uint32_t strong_len = (m & 0xf) == 6 ? 16 : 32;  // MD4 magics end in 6, BLAKE2 in 7
        const sig_params params{m, block, strong_len};
        auto suffix_sums = [&](std::size_t at) {
            auto one = make_signature(test::bytes(next.begin() + static_cast<std::ptrdiff_t>(at), next.end()),
                                      {m, 4096, strong_len});
            REQUIRE(one.ok());
            auto loaded = load_signature(*one);
            REQUIRE(loaded.ok());
            return std::move(loaded).value();
        };
        signature sig{params};
        for (std::size_t i = 0; i < 40; ++i) {
            const auto sums = suffix_sums(next.size() - block + 3 + 13 * i);
            REQUIRE(sig.add_block(sums.weak_sum(0), test::random_bytes(strong_len, 200 + i)));
        }
        const auto real = suffix_sums(match_at);
        REQUIRE(sig.add_block(real.weak_sum(0), real.strong_sum(0)));
        REQUIRE(sig.build_index().ok());
        test::bytes want = test::from_hex("72730236 42 09c4");
        want.insert(want.end(), next.begin(), next.begin() + static_cast<std::ptrdiff_t>(match_at));
        const test::bytes copy = test::from_hex("4a a000 01f4 00");  // COPY(40 * 1024, 500), END
        want.insert(want.end(), copy.begin(), copy.end());
        for (unsigned threads : {1u, 2u}) {
            CAPTURE(threads);
            const auto batches_before = hooks::counted(hooks::event::candidate_batch);
            auto got = make_delta(sig, next, 0, delta_options{{threads}, false});
            REQUIRE(got.ok());
            CHECK(test::to_hex(*got) == test::to_hex(want));
            // MD4 tail windows are hashed one at a time (no multi-length MD4 kernel).
            CHECK((hooks::counted(hooks::event::candidate_batch) > batches_before) == (strong_len == 32));
        }
    }
}

TEST_CASE("windows equal to earlier windows that missed are passed over, with the delta unchanged") {
    // Crafted records with the weak sums of every block-long window of runs of 'A'
    // and 'B' and of data repeating "xy", "pqr", "01234567" and 16 bytes (wrong strong sums):
    // every window there hits and misses, and once a whole period of them has, the
    // rest of the run or repetition is passed over. A block of 'C' is real: 'C'
    // runs copy it. Runs shorter than, equal to and longer than a block, at the
    // edges of copies, and 3 MiB of new data for segments scanned in parallel.
    const std::uint32_t block = 512;
    test::bytes basis = test::random_bytes(64 << 10, 91);
    basis.insert(basis.end(), block, 'C');
    const std::string fills[] = {"A", "B", "xy", "pqr", "01234567", "0123456789abcdef"};
    auto repeat = [](const std::string& pattern, std::size_t phase, std::size_t len) {
        test::bytes out(len);
        for (std::size_t i = 0; i < len; ++i) out[i] = static_cast<std::uint8_t>(pattern[(phase + i) % pattern.size()]);
        return out;
    };
    auto append = [](test::bytes& to, const test::bytes& what) { to.insert(to.end(), what.begin(), what.end()); };
    // One phase of "pqr" is real too: after each COPY of it (512 bytes, not a whole
    // number of periods) one window misses before the next match, equal to the one
    // after the previous COPY, yet no whole period of windows in a row misses.
    append(basis, repeat("pqr", 0, block));
    test::bytes next;
    const std::size_t run_lengths[] = {block / 2, block, block + 1, 3 * block + 17, 40000, 300000};
    for (std::size_t part = 0; next.size() < (3u << 20); ++part) {
        append(next, test::random_bytes(1000 + 311 * (part % 7), 92 + part));
        const std::size_t len = run_lengths[part % 6];
        append(next, repeat(fills[part % 6], part, len));
        if (part % 4 == 1) next.insert(next.end(), run_lengths[(part + 1) % 6], 'C');
        const std::size_t from = (part * 4096) % (60 << 10);
        next.insert(next.end(), basis.begin() + static_cast<std::ptrdiff_t>(from),
                    basis.begin() + static_cast<std::ptrdiff_t>(from + 3 * block));
        if (part % 5 == 3) append(next, repeat(fills[part % 3], 0, len));  // right after a copy
    }
    append(next, repeat("pqr", 1, 2 * block));  // and at the end of the input
    for (const std::uint32_t m : {0x72730147u, 0x72730137u, 0x72730146u, 0x72730136u}) {
        CAPTURE(m);
        const std::uint32_t strong_len = (m & 0xf) == 6 ? 16 : 32;
        auto plain_bytes = make_signature(basis, {m, block, strong_len});
        REQUIRE(plain_bytes.ok());
        auto plain = load_signature(*plain_bytes);
        REQUIRE(plain.ok());
        signature crafted{plain->params()};
        for (std::size_t i = 0; i < plain->block_count(); ++i)
            REQUIRE(crafted.add_block(plain->weak_sum(i), plain->strong_sum(i)));
        for (const std::string& fill : fills)
            for (std::size_t phase = 0; phase < fill.size(); ++phase) {
                auto window_sig = make_signature(repeat(fill, phase, block), {m, block, strong_len});
                REQUIRE(window_sig.ok());
                auto window = load_signature(*window_sig);
                REQUIRE(window.ok());
                REQUIRE(crafted.add_block(window->weak_sum(0), test::random_bytes(strong_len, 300 + phase)));
            }
        REQUIRE(plain->build_index().ok());
        REQUIRE(crafted.build_index().ok());
        for (const bool in_place_safe : {false, true}) {
            CAPTURE(in_place_safe);
            auto want = make_delta(*plain, next, 0, delta_options{{1}, false, in_place_safe});
            REQUIRE(want.ok());
            for (unsigned threads : {1u, 2u}) {
                CAPTURE(threads);
                const auto skipped_before = hooks::counted(hooks::event::periodic_windows_skipped);
                auto got = make_delta(crafted, next, 0, delta_options{{threads}, false, in_place_safe});
                REQUIRE(got.ok());
                CHECK(*got == *want);
                CHECK(hooks::counted(hooks::event::periodic_windows_skipped) - skipped_before > 1000000);
            }
            auto rebuilt = apply_patch(basis, *want);
            REQUIRE(rebuilt.ok());
            CHECK(*rebuilt == next);
        }
    }
}

TEST_CASE("windows of data with a period of up to 16 bytes are hashed once per phase") {
    // Every window of a 16-byte period hits a crafted record and misses: the memo
    // holds all 16 phases, so 200 KB cost a few dozen strong sums (a memo of 8 hashed every
    // window, over the work budget).
    const std::uint32_t block = 1024;
    const std::string pattern = "0123456789abcdef";
    auto repeat = [&](std::size_t phase, std::size_t len) {
        test::bytes out(len);
        for (std::size_t i = 0; i < len; ++i) out[i] = static_cast<std::uint8_t>(pattern[(phase + i) % pattern.size()]);
        return out;
    };
    const test::bytes next = repeat(0, 200000);
    for (const std::uint32_t m : {0x72730147u, 0x72730136u}) {
        CAPTURE(m);
        const std::uint32_t strong_len = (m & 0xf) == 6 ? 16 : 32;
        signature sig{sig_params{m, block, strong_len}};
        for (std::size_t phase = 0; phase < pattern.size(); ++phase) {
            auto one = make_signature(repeat(phase, block), {m, block, strong_len});
            REQUIRE(one.ok());
            auto loaded = load_signature(*one);
            REQUIRE(loaded.ok());
            REQUIRE(sig.add_block(loaded->weak_sum(0), test::random_bytes(strong_len, 400 + phase)));
        }
        REQUIRE(sig.build_index().ok());
        auto j = make_delta_job(sig, delta_options{{1}});
        test::bytes out(next.size() + 4096);
        buffers io{next.data(), next.size(), true, out.data(), out.size()};
        auto status = j->iterate(io);
        REQUIRE(status.ok());
        CHECK(*status == job_status::done);
        CHECK(j->stats().strong_calcs <= 32);  // 16 phases, and some hashed ahead in batches
    }
}
