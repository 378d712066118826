// test_delta.cpp - delta generation: reference examples, matching rules, chunking,
// parallel scanning (weak hits that miss: test_delta_false_hits.cpp).
#include "test_helpers.hpp"

#include "match/parallel_scan.hpp"
#include "test_hooks_on.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>

#include <doctest/doctest.h>

#include <vector>

using namespace rdelta;
namespace hooks = rdelta::detail::test_hooks;  // events counted (tests/hooks)

namespace {
// The expected bytes below are rdiff's: no checksum trailer after END.
const delta_options rdiff_bytes{{0}, false};

signature signature_of(const test::bytes& basis, std::uint32_t magic_value, std::uint32_t block, std::uint32_t strong) {
    auto bytes = make_signature(basis, {magic_value, block, strong});
    REQUIRE(bytes.ok());
    auto sig = load_signature(*bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index().ok());
    return std::move(sig).value();
}

std::string delta_hex(const test::bytes& basis, const test::bytes& next, std::uint32_t block = 256,
                      std::uint32_t magic_value = 0x72730147) {
    auto sig = signature_of(basis, magic_value, block, 32 / (magic_value & 1 ? 1 : 2));
    auto d = make_delta(sig, next, 0, rdiff_bytes);
    REQUIRE(d.ok());
    return test::to_hex(*d);
}

// The delta job's output for `next` pushed in pieces of schedule[0], schedule[1],
// ... (cycling), drained through a 64 KiB window.
test::bytes run_delta_job(const signature& sig, const test::bytes& next, unsigned threads,
                          const std::vector<std::size_t>& schedule) {
    auto j = make_delta_job(sig, delta_options{{threads}});
    test::bytes out;
    std::vector<std::uint8_t> window(1 << 16);
    std::size_t off = 0;
    for (std::size_t step = 0;; ++step) {
        const std::size_t n = std::min(schedule[step % schedule.size()], next.size() - off);
        buffers io{next.data() + off, n, off + n == next.size(), window.data(), window.size()};
        auto st = j->iterate(io);
        REQUIRE(st.ok());
        off += n - io.avail_in;
        out.insert(out.end(), window.data(), io.next_out);
        if (*st == job_status::done) return out;
    }
}
}  // namespace

TEST_CASE("tail match: basis 'hello', new 'ahello'") {
    CHECK(delta_hex(test::from_string("hello"), test::from_string("ahello")) ==
          test::to_hex(test::from_hex("72730236 01 61 450005 00")));
}

TEST_CASE("identical file without repeats is one merged COPY") {
    const auto data = test::random_bytes(256 * 40, 1);
    CHECK(delta_hex(data, data) ==
          "72730236"
          "46"
          "00"
          "2800"
          "00");
}

TEST_CASE("duplicate blocks all map to the first, and only contiguous copies merge") {
    const test::bytes zeros(1024, 0);
    // Four COPY(0,256): the table keeps only block 0 for identical blocks.
    CHECK(delta_hex(zeros, zeros) ==
          test::to_hex(test::from_hex("72730236 46 00 0100 46 00 0100 46 00 0100 46 00 0100 00")));
}

TEST_CASE("empty new file and empty signature") {
    CHECK(delta_hex(test::from_string("abc"), {}) == "7273023600");
    signature empty{sig_params{0x72730147, 256, 32}};
    auto d = make_delta(empty, test::bytes(1000, 'x'), 256, rdiff_bytes);
    REQUIRE(d.ok());
    // Slack delta: one literal per input chunk (LIT 256 x3, LIT 232), then END.
    test::bytes expected = test::from_hex("72730236");
    for (int i = 0; i < 3; ++i) {
        auto lit = test::from_hex("420100");
        expected.insert(expected.end(), lit.begin(), lit.end());
        expected.insert(expected.end(), 256, 'x');
    }
    expected.push_back(0x41), expected.push_back(232);
    expected.insert(expected.end(), 232, 'x');
    expected.push_back(0);
    CHECK(*d == expected);
}

TEST_CASE("long literal runs are cut at 32768 bytes") {
    const auto basis = test::random_bytes(4096, 2);
    const auto fresh = test::random_bytes(100000, 3);
    auto sig = signature_of(basis, 0x72730147, 256, 32);
    auto d = make_delta(sig, fresh, 0, rdiff_bytes);
    REQUIRE(d.ok());
    // 3 x (42 8000 + 32768 bytes), then 42 06a0 + 1696 bytes, END.
    CHECK(d->size() == 4 + 3 * (3 + 32768) + 3 + 1696 + 1);
    CHECK((*d)[4] == 0x42);
    CHECK((*d)[5] == 0x80);
    CHECK((*d)[6] == 0x00);
}

TEST_CASE("delta output is independent of input chunking and round-trips") {
    const auto basis = test::random_bytes(20000, 4, 4);
    auto next = basis;
    next.insert(next.begin() + 5000, {1, 2, 3, 1, 2});
    next.erase(next.begin() + 12000, next.begin() + 12100);
    for (std::uint32_t m : {0x72730136u, 0x72730137u, 0x72730146u, 0x72730147u}) {
        CAPTURE(m);
        auto sig = signature_of(basis, m, 64, 8);
        auto whole = make_delta(sig, next);
        REQUIRE(whole.ok());
        for (std::size_t chunk : {1u, 63u, 64u, 65u, 1000u}) {
            auto j = make_delta_job(sig);
            test::bytes out;
            std::uint8_t window[7];
            std::size_t off = 0;
            for (;;) {
                const std::size_t n = std::min(chunk, next.size() - off);
                buffers io{next.data() + off, n, off + n == next.size(), window, sizeof window};
                auto st = j->iterate(io);
                REQUIRE(st.ok());
                off += n - io.avail_in;
                out.insert(out.end(), window, io.next_out);
                if (*st == job_status::done) break;
            }
            CHECK(out == *whole);
        }
        auto rebuilt = apply_patch(basis, *whole);
        REQUIRE(rebuilt.ok());
        CHECK(*rebuilt == next);
    }
}

TEST_CASE("small pushes are gathered and scanned together, on all threads, with the delta unchanged") {
    // 6 MiB with edits, a shifted part and unrelated data, against 4 KiB blocks: the
    // job collects pieces of 1500 bytes or 16 KiB until it holds enough for the
    // threads to share (about 2 MiB), and scans big pushes in place as before.
    const auto basis = test::random_bytes(6u << 20, 31);
    auto next = basis;
    const auto noise = test::random_bytes(next.size(), 32);
    for (std::size_t at = 50000; at + 5000 < next.size(); at += 700001)
        std::copy_n(noise.begin() + static_cast<std::ptrdiff_t>(at), 3000,
                    next.begin() + static_cast<std::ptrdiff_t>(at));
    next.insert(next.begin() + (2u << 20), noise.begin(), noise.begin() + 777);
    std::copy_n(noise.begin(), 1u << 20, next.begin() + (4u << 20));
    for (std::uint32_t m : {0x72730136u, 0x72730147u}) {
        CAPTURE(m);
        auto sig = signature_of(basis, m, 4096, 8);
        auto whole = make_delta(sig, next, 0, delta_options{{1}});
        REQUIRE(whole.ok());
        // Pieces: constant sizes, and small ones alternating with 3 MiB ones.
        const std::vector<std::vector<std::size_t>> schedules = {{1500}, {16384}, {100000}, {1500, 3u << 20}};
        for (unsigned threads : {1u, 2u}) {
            for (const auto& schedule : schedules) {
                CAPTURE(threads);
                CAPTURE(schedule.front());
                const auto runs_before = hooks::counted(hooks::event::parallel_scan);
                CHECK(run_delta_job(sig, next, threads, schedule) == *whole);
                // Pieces of 1500 bytes could never be split among threads unless gathered.
                if (threads > 1 && schedule.size() == 1 && schedule.front() == 1500)
                    CHECK(hooks::counted(hooks::event::parallel_scan) > runs_before);
            }
        }
    }
}

TEST_CASE("delta builds the index when none was built") {
    signature sig{sig_params{0x72730147, 4, 8}};
    const test::bytes strong(8, 0);
    REQUIRE(sig.add_block(1, strong));
    auto d = make_delta(sig, test::from_string("abcdefgh"));
    REQUIRE(d.ok());
    auto out = apply_patch(test::from_string("wxyz"), *d);
    REQUIRE(out.ok());
    CHECK(*out == test::from_string("abcdefgh"));
}

TEST_CASE("many identical weak sums with distinct strong sums are still matched exactly") {
    // A crafted signature: 5000 blocks sharing one weak sum. The block that really
    // matches must be found, and lookups must stay fast (binary search in the run).
    const test::bytes block = test::from_string("ABCDEFGH");
    sig_params p{0x72730147, 8, 32};
    auto real = make_signature(block, p);
    REQUIRE(real.ok());
    auto real_sig = load_signature(*real);
    REQUIRE(real_sig.ok());
    signature sig{p};
    for (int i = 0; i < 5000; ++i) {
        auto strong = test::random_bytes(32, 100 + i);
        REQUIRE(sig.add_block(real_sig->weak_sum(0), strong));
    }
    REQUIRE(sig.add_block(real_sig->weak_sum(0), real_sig->strong_sum(0)));
    REQUIRE(sig.build_index().ok());
    auto d = make_delta(sig, block, 0, rdiff_bytes);
    REQUIRE(d.ok());
    // COPY(5000*8, 8) = 0x49 9c40 08
    CHECK(test::to_hex(*d) == test::to_hex(test::from_hex("72730236 49 9c40 08 00")));
}

TEST_CASE("parallel scanning gives the sequential delta") {
    // Low-entropy data with repeats, so speculative scans often land inside
    // matches and must resynchronise; several formats and block lengths.
    const auto unit = test::random_bytes(3000, 21, 4);
    test::bytes basis;
    // Large enough that 4 threads get segments of their minimum size (1 MiB each).
    while (basis.size() < (5u << 20)) basis.insert(basis.end(), unit.begin(), unit.end());
    const auto noise = test::random_bytes(basis.size(), 22, 4);
    for (std::size_t i = 0; i < basis.size(); i += 7919) basis[i] = noise[i];
    auto next = basis;
    for (std::size_t at = 100000; at + 2000 < next.size(); at += 300007) {
        next.insert(next.begin() + static_cast<std::ptrdiff_t>(at), noise.begin(), noise.begin() + 777);
        next.erase(next.begin() + static_cast<std::ptrdiff_t>(at + 5000),
                   next.begin() + static_cast<std::ptrdiff_t>(at + 5100));
    }
    for (std::uint32_t block : {16u, 100u, 1024u}) {
        for (std::uint32_t m : {0x72730136u, 0x72730147u}) {
            CAPTURE(block);
            CAPTURE(m);
            auto sig = signature_of(basis, m, block, 4);
            auto sequential = make_delta(sig, next, 0, delta_options{{1}});
            REQUIRE(sequential.ok());
            for (unsigned threads : {2u, 3u, 4u}) {
                CAPTURE(threads);
                const auto runs_before = hooks::counted(hooks::event::parallel_scan);
                auto parallel = make_delta(sig, next, 0, delta_options{{threads}});
                REQUIRE(parallel.ok());
                CHECK(*parallel == *sequential);
                CHECK(hooks::counted(hooks::event::parallel_scan) > runs_before);  // the parallel path really ran
            }
        }
    }
}

TEST_CASE("parallel scanning of long zero runs, matches reaching the end of the input") {
    // Every window of a zero run matches the first zero block, so speculative
    // scans jump block by block and the last one ends past the scan limit.
    test::bytes basis = test::random_bytes(1 << 20, 31);
    basis.resize(basis.size() + (8u << 20), 0);
    const auto tail = test::random_bytes(1 << 20, 32);
    basis.insert(basis.end(), tail.begin(), tail.end());
    basis.resize(basis.size() + 10000, 0);
    auto next = basis;
    next.push_back('x');
    next.insert(next.begin() + 3000000, 'y');
    for (std::uint32_t block : {1000u, 4096u, 8192u}) {
        CAPTURE(block);
        auto sig = signature_of(basis, 0x72730147, block, 8);
        auto sequential = make_delta(sig, next, 0, delta_options{{1}});
        REQUIRE(sequential.ok());
        for (unsigned threads : {2u, 3u, 5u}) {
            CAPTURE(threads);
            auto parallel = make_delta(sig, next, 0, delta_options{{threads}});
            REQUIRE(parallel.ok());
            CHECK(*parallel == *sequential);
            // Chunks that end inside the zero run: each chunk's scan limit falls
            // inside a speculative match.
            CHECK(run_delta_job(sig, next, threads, {std::size_t{3} << 20}) == *sequential);
        }
        auto rebuilt = apply_patch(basis, *sequential);
        REQUIRE(rebuilt.ok());
        CHECK(*rebuilt == next);
    }
}
