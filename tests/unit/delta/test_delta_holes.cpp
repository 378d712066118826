// test_delta_holes.cpp - runs of zeros passed to the delta job without being
// scanned, and deltas of sparse files, give exactly the scanned delta.
#include "delta/delta_job.hpp"
#include "test_helpers.hpp"
#include "test_hooks_on.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <utility>

using namespace rdelta;
namespace hooks = rdelta::detail::test_hooks;  // events counted (tests/hooks)

namespace {

signature indexed_signature(const test::bytes& basis, std::uint32_t magic_value, std::uint32_t block,
                            bool keep_duplicates) {
    auto bytes = make_signature(basis, {magic_value, block, 8});
    REQUIRE(bytes.ok());
    auto sig = load_signature(*bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index(keep_duplicates).ok());
    return std::move(sig).value();
}

// A piece of the new file: bytes, or (when `data` is empty) `zeros` zero bytes.
struct file_piece {
    test::bytes data;
    std::size_t zeros = 0;
};

test::bytes flatten(const std::vector<file_piece>& pieces) {
    test::bytes all;
    for (const auto& p : pieces) {
        all.insert(all.end(), p.data.begin(), p.data.end());
        all.resize(all.size() + p.zeros, 0);
    }
    return all;
}

void drain(job& j, const std::uint8_t* in, std::size_t n, bool eof, test::bytes& out) {
    std::vector<std::uint8_t> window(4096);
    buffers io{in, n, eof, window.data(), window.size()};
    for (;;) {
        io.next_out = window.data(), io.avail_out = window.size();
        auto st = j.iterate(io);
        REQUIRE(st.ok());
        out.insert(out.end(), window.data(), window.data() + (window.size() - io.avail_out));
        if (*st == job_status::done || (io.avail_in == 0 && io.avail_out > 0 && !eof)) return;
    }
}

// The delta of `pieces` with every zero run passed to feed_zeros in parts of `split` bytes.
test::bytes delta_fed_with_zeros(const signature& sig, const std::vector<file_piece>& pieces, std::size_t split,
                                 delta_options options) {
    auto made = detail::make_scanning_delta_job(sig, options);
    REQUIRE(made);
    auto& j = *made;
    test::bytes out;
    for (const auto& p : pieces) {
        if (!p.data.empty()) drain(*j, p.data.data(), p.data.size(), false, out);
        for (std::size_t done = 0; done < p.zeros; done += std::min(split, p.zeros - done)) {
            j->feed_zeros(std::min(split, p.zeros - done));
            drain(*j, nullptr, 0, false, out);
        }
    }
    drain(*j, nullptr, 0, true, out);
    return out;
}

test::bytes patched(const test::bytes& basis, const test::bytes& delta) {
    memory_basis b(basis);
    auto j = make_patch_job(b, {});
    test::bytes out;
    drain(*j, delta.data(), delta.size(), true, out);
    return out;
}

}  // namespace

TEST_CASE("feed_zeros encodes runs of zeros exactly as scanning them") {
    // Bases with and without zero blocks (zero windows match, or become literal
    // data); data before each run that does not match, so a literal is pending.
    const auto head = test::random_bytes(70000, 41);
    const auto mid = test::random_bytes(5000, 42);
    test::bytes zero_run_basis = head;
    zero_run_basis.resize(zero_run_basis.size() + 50000, 0);
    zero_run_basis.insert(zero_run_basis.end(), mid.begin(), mid.end());
    const test::bytes& with_zeros = zero_run_basis;
    const auto without_zeros = test::random_bytes(120000, 43);
    const auto noise = test::random_bytes(3000, 44);

    // Runs shorter and longer than the part that is always scanned (a block and a
    // literal run), passed whole and in parts of both kinds.
    for (std::size_t run : {std::size_t{999}, std::size_t{100001}}) {
        const std::vector<file_piece> layouts[] = {
            {{{}, run}, {mid, 0}},                // run at the start
            {{head, 0}, {noise, run}, {mid, 0}},  // literal pending before the run
            {{head, run}, {{}, 17}, {mid, run}},  // run reaching the end
            {{noise, run}, {head, 0}},
        };
        for (const auto& layout : layouts) {
            const test::bytes next = flatten(layout);
            for (std::uint32_t m : {0x72730136u, 0x72730147u}) {
                for (std::uint32_t block : {16u, 4096u}) {
                    for (bool safe : {false, true}) {
                        // Half a block of zeros then `mid`: no zero block, but a block that
                        // the windows leaving a run of zeros into `mid` match.
                        auto half_zeros = test::random_bytes(4 * block, 45);
                        half_zeros.resize(half_zeros.size() + block / 2, 0);
                        half_zeros.insert(half_zeros.end(), mid.begin(), mid.end());
                        for (const test::bytes* basis :
                             {&with_zeros, &without_zeros, static_cast<const test::bytes*>(&half_zeros)}) {
                            CAPTURE(run);
                            CAPTURE(m);
                            CAPTURE(block);
                            CAPTURE(safe);
                            const auto sig = indexed_signature(*basis, m, block, safe);
                            const delta_options options{{1}, true, safe};
                            auto scanned = make_delta(sig, next, 0, options);
                            REQUIRE(scanned.ok());
                            CHECK(delta_fed_with_zeros(sig, layout, run + 1, options) == *scanned);
                            CHECK(delta_fed_with_zeros(sig, layout, 65536 + 777, options) == *scanned);
                            CHECK(patched(*basis, *scanned) == next);
                        }
                    }
                }
            }
        }
    }
}

namespace {

// A file in memory whose listed ranges are holes; reading a hole is a test failure.
class sparse_memory_file final : public basis_reader {
public:
    sparse_memory_file(const test::bytes& bytes, std::vector<std::pair<std::uint64_t, std::uint64_t>> holes)
        : bytes_(bytes), holes_(std::move(holes)) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        const std::size_t n =
            pos >= bytes_.size() ? 0 : std::min(out.size(), bytes_.size() - static_cast<std::size_t>(pos));
        for (const auto& [from, to] : holes_)
            if (pos < to && pos + n > from) read_holes = true;
        std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(pos), n, out.begin());
        bytes_read += n;
        return n;
    }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override {
        for (const auto& [from, to] : holes_)
            if (pos >= from && pos + len <= to) return true;
        return false;
    }
    bool read_holes = false;
    std::uint64_t bytes_read = 0;

private:
    const test::bytes& bytes_;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> holes_;
};

}  // namespace

TEST_CASE("make_delta_from skips holes and gives the scanned delta") {
    constexpr std::uint64_t mib = 1 << 20;
    // Basis: data, 3 MiB of zeros, data. New file: 10 MiB with holes at 1-4 MiB and
    // 6-10 MiB (to the end) and changed data around them.
    test::bytes basis = test::random_bytes(mib, 51);
    basis.resize(4 * mib, 0);
    const auto tail = test::random_bytes(mib, 52);
    basis.insert(basis.end(), tail.begin(), tail.end());
    test::bytes next = test::random_bytes(10 * mib, 53);
    std::copy_n(basis.begin(), mib / 2, next.begin() + 3);
    std::fill(next.begin() + mib, next.begin() + 4 * mib, 0);
    std::fill(next.begin() + 6 * mib, next.end(), 0);
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> holes = {{mib, 4 * mib}, {6 * mib, 10 * mib}};
    for (std::uint32_t m : {0x72730146u, 0x72730137u}) {
        for (std::uint32_t block : {64u, 2048u, 600000u}) {
            for (unsigned threads : {1u, 2u}) {
                CAPTURE(m);
                CAPTURE(block);
                CAPTURE(threads);
                const auto sig = indexed_signature(basis, m, block, false);
                const delta_options options{{threads}, true, false};
                auto scanned = make_delta(sig, next, 0, options);
                REQUIRE(scanned.ok());
                sparse_memory_file file(next, holes);
                test::bytes out;
                std::uint64_t last_progress = 0;
                auto made = make_delta_from(
                    file, next.size(), sig, options,
                    [&](std::span<const std::uint8_t> b) -> result<void> {
                        out.insert(out.end(), b.begin(), b.end());
                        return {};
                    },
                    [&](std::uint64_t done) { last_progress = done; });
                REQUIRE(made.ok());
                CHECK(out == *scanned);
                CHECK_FALSE(file.read_holes);
                CHECK(file.bytes_read == 3 * mib);
                CHECK(last_progress == next.size());
                CHECK(made->in_bytes == static_cast<std::int64_t>(next.size()));
            }
        }
    }
}

TEST_CASE("make_delta_from with an empty signature reads in block-length chunks, as rdiff") {
    const auto next = test::random_bytes(100000, 61);
    auto sig_bytes = make_signature({}, {0x72730147, 4096, 8});
    REQUIRE(sig_bytes.ok());
    auto sig = load_signature(*sig_bytes);
    REQUIRE(sig.ok());
    auto scanned = make_delta(*sig, next, 4096);
    REQUIRE(scanned.ok());
    sparse_memory_file file(next, {});
    test::bytes out;
    auto made = make_delta_from(file, next.size(), *sig, {}, [&](std::span<const std::uint8_t> b) -> result<void> {
        out.insert(out.end(), b.begin(), b.end());
        return {};
    });
    REQUIRE(made.ok());
    CHECK(out == *scanned);
}

TEST_CASE("make_delta_from with an empty signature skips holes and gives rdiff's slack delta") {
    constexpr std::uint64_t mib = 1 << 20;
    // 10 MiB: data, a hole at 1-4 MiB, data, a hole from 6 MiB to the end.
    test::bytes next = test::random_bytes(10 * mib, 62);
    std::fill(next.begin() + mib, next.begin() + 4 * mib, 0);
    std::fill(next.begin() + 6 * mib, next.end(), 0);
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> holes = {{mib, 4 * mib}, {6 * mib, 10 * mib}};
    for (std::uint32_t block : {4096u, 3000u, 600000u}) {
        CAPTURE(block);
        auto sig_bytes = make_signature({}, {0x72730147, block, 8});
        REQUIRE(sig_bytes.ok());
        auto sig = load_signature(*sig_bytes);
        REQUIRE(sig.ok());
        auto scanned = make_delta(*sig, next, block);
        REQUIRE(scanned.ok());
        auto want_sig = make_signature(next, {0x72730147, block, 8});
        REQUIRE(want_sig.ok());
        sparse_memory_file file(next, holes);
        test::bytes out, new_sig;
        const new_signature_output tee{{0x72730147, block, 8}, [&](std::span<const std::uint8_t> b) -> result<void> {
                                           new_sig.insert(new_sig.end(), b.begin(), b.end());
                                           return {};
                                       }};
        std::uint64_t last_progress = 0;
        auto made = make_delta_from(
            file, next.size(), *sig, {},
            [&](std::span<const std::uint8_t> b) -> result<void> {
                out.insert(out.end(), b.begin(), b.end());
                return {};
            },
            [&](std::uint64_t done) { last_progress = done; }, &tee);
        REQUIRE(made.ok());
        CHECK(out == *scanned);
        CHECK(new_sig == *want_sig);
        CHECK(last_progress == next.size());
        // Chunks that straddle a hole's edge are read: at most one at each edge.
        CHECK(file.bytes_read >= 3 * mib);
        CHECK(file.bytes_read <= 3 * mib + 3 * block);
        if (mib % block == 0) CHECK_FALSE(file.read_holes);
    }
}

TEST_CASE("make_delta_from passes the bytes not yet encoded again before each chunk, with the delta unchanged") {
    constexpr std::size_t mib = 1 << 20;
    // New file: pieces of the basis and literal runs (some longer than a literal
    // command), more than two chunks of data, a hole between them, so that matches,
    // literals and pending copies reach across the chunk boundaries.
    const test::bytes basis = test::random_bytes(4 * mib, 61);
    test::bytes next;
    std::uint64_t x = 0x2545f4914f6cdd1dull;
    auto rnd = [&](std::size_t n) {
        return (x ^= x << 13, x ^= x >> 7, x ^= x << 17, static_cast<std::size_t>(x % n));
    };
    while (next.size() < 21 * mib) {
        const std::size_t len = 50000 + rnd(2 * mib), from = rnd(basis.size() - len);
        next.insert(next.end(), basis.begin() + static_cast<std::ptrdiff_t>(from),
                    basis.begin() + static_cast<std::ptrdiff_t>(from + len));
        const auto literal = test::random_bytes(1 + rnd(70000), x);
        next.insert(next.end(), literal.begin(), literal.end());
    }
    std::fill(next.begin() + 12 * mib, next.begin() + 14 * mib, 0);
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> holes = {{12 * mib, 14 * mib}};
    for (std::uint32_t block : {700u, 65536u}) {
        for (unsigned threads : {1u, 2u}) {
            CAPTURE(block);
            CAPTURE(threads);
            const auto sig = indexed_signature(basis, 0x72730147u, block, false);
            const delta_options options{{threads}, true, false};
            auto scanned = make_delta(sig, next, 0, options);
            REQUIRE(scanned.ok());
            sparse_memory_file file(next, holes);
            test::bytes out;
            const auto before = hooks::counted(hooks::event::kept_bytes_repeated);
            auto made =
                make_delta_from(file, next.size(), sig, options, [&](std::span<const std::uint8_t> b) -> result<void> {
                    out.insert(out.end(), b.begin(), b.end());
                    return {};
                });
            REQUIRE(made.ok());
            CHECK(hooks::counted(hooks::event::kept_bytes_repeated) > before);
            CHECK(out == *scanned);
            CHECK(made->in_bytes == static_cast<std::int64_t>(next.size()));
            CHECK(patched(basis, out) == next);
        }
    }
}

TEST_CASE(
    "push_zeros_to passes a run's output on as it is made, and runs continued in pieces of any size give the scanned "
    "delta") {
    // Blocks of 4 KiB; a basis with a zero block (runs become COPYs) and one
    // without (runs become literal data, as large as the run), so that a run
    // continued in pieces starts after a match, inside a literal, or with fewer
    // than a block of zeros carried.
    const auto head = test::random_bytes(20000, 71);
    const auto tail = test::random_bytes(9000, 72);
    // Sized once: GCC 12 warns (-Warray-bounds, wrongly) on an insert after a resize.
    test::bytes with_zeros(head.size() + 3 * 4096 + 100 + tail.size(), 0);
    std::copy(head.begin(), head.end(), with_zeros.begin());
    std::copy(tail.begin(), tail.end(), with_zeros.end() - static_cast<std::ptrdiff_t>(tail.size()));
    const auto without_zeros = test::random_bytes(60000, 73);
    const std::size_t run = 3 << 20;
    const std::vector<file_piece> layout = {{head, run}, {tail, run}};
    const test::bytes next = flatten(layout);
    // Piece sizes after the first (long enough to skip windows): single bytes, less
    // and more than a block, a block and a literal run.
    const std::size_t sizes[] = {1, 17, 4095, 4096, 4097, 36928, 100000, 1 << 20};
    for (std::uint32_t m : {0x72730136u, 0x72730147u}) {
        for (bool safe : {false, true}) {
            for (const test::bytes* basis : {static_cast<const test::bytes*>(&with_zeros), &without_zeros}) {
                CAPTURE(m);
                CAPTURE(safe);
                CAPTURE(basis == &with_zeros);
                const auto sig = indexed_signature(*basis, m, 4096, safe);
                const delta_options options{{1}, true, safe};
                auto scanned = make_delta(sig, next, 0, options);
                REQUIRE(scanned.ok());
                auto made = detail::make_scanning_delta_job(sig, options);
                REQUIRE(made);
                auto& j = *made;
                test::bytes out;
                std::size_t largest = 0;
                const byte_sink sink = [&](std::span<const std::uint8_t> b) -> result<void> {
                    largest = std::max(largest, b.size());
                    out.insert(out.end(), b.begin(), b.end());
                    return {};
                };
                for (const auto& p : layout) {
                    REQUIRE(j->push_to(p.data, false, sink).ok());
                    std::size_t done = 0;
                    for (std::size_t i = 0; done < p.zeros; ++i) {
                        const std::size_t n =
                            std::min(i == 0 ? std::size_t{200000} : sizes[i % std::size(sizes)], p.zeros - done);
                        const std::size_t before = out.size();
                        REQUIRE(j->push_zeros_to(n, sink).ok());
                        // Nothing waits in the job: all literal data made so far was passed on.
                        if (basis == &without_zeros && n >= 4 * 65536) CHECK(out.size() > before + n / 2);
                        done += n;
                    }
                }
                REQUIRE(j->push_to({}, true, sink).ok());
                CHECK(out == *scanned);
                CHECK(largest <= 2 * (std::size_t{256} << 10) + 65536);
                CHECK(patched(*basis, out) == next);
            }
        }
    }
}
