// test_delta_sink.cpp - how make_delta_from hands its output over: the job's
// queue spills to the sink as output is made (no copy into a window first), on
// the caller's thread, in bounded pieces; a failing sink stops the delta.
#include "core/output_queue.hpp"
#include "core/parallel.hpp"
#include "file_with_hole.hpp"
#include "test_helpers.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sched.h>

using namespace rdelta;

namespace {

// Every thread of the process on one CPU while it lives. There, a woken pool
// thread usually runs before the thread that woke it, so a task the caller does
// not claim for itself goes to a helper: what the caller-thread checks need.
class one_cpu {
public:
    one_cpu() {
        cpu_set_t mine;
        REQUIRE(sched_getaffinity(0, sizeof mine, &mine) == 0);
        int first = 0;
        while (!CPU_ISSET(first, &mine)) ++first;
        cpu_set_t only;
        CPU_ZERO(&only);
        CPU_SET(first, &only);
        for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
            const pid_t tid = std::stoi(task.path().filename().string());
            cpu_set_t before;
            if (sched_getaffinity(tid, sizeof before, &before) != 0) continue;
            if (sched_setaffinity(tid, sizeof only, &only) == 0) saved_.emplace_back(tid, before);
        }
    }
    ~one_cpu() {
        for (auto& [tid, mask] : saved_) sched_setaffinity(tid, sizeof mask, &mask);
    }
    one_cpu(const one_cpu&) = delete;
    one_cpu& operator=(const one_cpu&) = delete;

private:
    std::vector<std::pair<pid_t, cpu_set_t>> saved_;
};

// The signature of `basis` (RabinKarp and BLAKE2b, 16-byte strong sums), loaded.
signature loaded_signature(const test::bytes& basis, std::uint32_t block_len) {
    auto bytes = make_signature(basis, {0x72730147u, block_len, 16});
    REQUIRE(bytes.ok());
    auto sig = load_signature(*bytes);
    REQUIRE(sig.ok());
    return std::move(sig).value();
}

}  // namespace

TEST_CASE("output_queue spills at its threshold, keeps the first error and drops what follows") {
    detail::output_queue q;
    test::bytes got;
    int calls = 0;
    const byte_sink keep = [&](std::span<const std::uint8_t> b) -> result<void> {
        ++calls;
        got.insert(got.end(), b.begin(), b.end());
        return {};
    };
    q.spill_to(&keep, 100);
    std::memset(q.reserve(60), 1, 60);
    std::memset(q.reserve(30), 2, 30);
    CHECK(calls == 0);  // 90 bytes queued: below the threshold
    std::memset(q.reserve(20), 3, 20);
    CHECK(calls == 0);  // 110 queued now; the spill comes before the next reservation
    std::memset(q.reserve(5), 4, 5);
    CHECK(calls == 1);
    CHECK(got.size() == 110);
    CHECK(q.size() == 5);
    q.spill();
    CHECK(q.empty());
    CHECK(q.spilled() == 115);
    CHECK(got == [] {
        test::bytes want(60, 1);
        want.resize(90, 2);
        want.resize(110, 3);
        want.resize(115, 4);
        return want;
    }());
    CHECK_FALSE(q.spill_error());

    int failing_calls = 0;
    const byte_sink failing = [&](std::span<const std::uint8_t>) -> result<void> {
        ++failing_calls;
        return fail(errc::io_error, "disk full");
    };
    q.spill_to(&failing, 10);
    q.append(got.data(), 20);
    q.append(got.data(), 20);  // spills the first 20: fails
    q.append(got.data(), 20);  // dropped, the sink is not called again
    q.spill();
    CHECK(failing_calls == 1);
    REQUIRE(q.spill_error());
    CHECK(q.spill_error()->message == "disk full");
    CHECK(q.spilled() == 115);
    CHECK(q.empty());

    q.spill_to(nullptr);
    q.append(got.data(), 115);  // no sink: bytes wait for drain()
    CHECK(q.size() == 115);
}

TEST_CASE("output_queue hands a backlog made without a sink over in pieces of the threshold") {
    detail::output_queue q;
    const test::bytes bytes = test::random_bytes(1050, 5);
    q.append(bytes.data(), bytes.size());
    test::bytes got;
    std::vector<std::size_t> pieces;
    const byte_sink keep = [&](std::span<const std::uint8_t> b) -> result<void> {
        pieces.push_back(b.size());
        got.insert(got.end(), b.begin(), b.end());
        return {};
    };
    q.spill_to(&keep, 100);
    q.spill();
    CHECK(got == bytes);
    // Pieces of 100 while more than 200 are left, then the rest at once.
    CHECK(pieces == std::vector<std::size_t>{100, 100, 100, 100, 100, 100, 100, 100, 100, 150});
    CHECK(q.empty());
}

TEST_CASE("parallel_for with caller_runs_first runs task 0 on the caller's thread") {
    detail::parallel_for(2, 2, [](std::size_t) {});  // the pool has its helper before the pinning
    const one_cpu pinned;
    const auto caller = std::this_thread::get_id();
    for (int round = 0; round < 300; ++round) {
        std::atomic<bool> zero_on_caller{false};
        std::atomic<int> ran{0};
        detail::parallel_for(
            4, 2,
            [&](std::size_t i) {
                if (i == 0) zero_on_caller = std::this_thread::get_id() == caller;
                ++ran;
            },
            true);
        REQUIRE(ran == 4);
        REQUIRE(zero_on_caller);
    }
}

TEST_CASE("make_delta_from passes its output to the sink on the caller's thread, in bounded pieces") {
    constexpr std::size_t mib = 1 << 20;
    const test::bytes basis = test::random_bytes(4 * mib, 71);
    // Half copied from the basis (COPY commands), half new (literal runs of 32 KiB).
    test::bytes next = test::random_bytes(12 * mib, 72);
    std::copy_n(basis.begin() + mib, 3 * mib, next.begin() + 2 * mib + 5);
    std::copy_n(basis.begin(), mib, next.begin() + 9 * mib + 77);
    auto sig = loaded_signature(basis, 2048);
    REQUIRE(sig.build_index().ok());
    const auto caller = std::this_thread::get_id();
    detail::parallel_for(2, 2, [](std::size_t) {});
    const one_cpu pinned;
    for (unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        const delta_options options{{threads}, true, false};
        auto whole = make_delta(sig, next, 0, options);
        REQUIRE(whole.ok());
        memory_basis file(next);
        test::bytes out;
        std::size_t largest = 0, calls = 0;
        bool off_thread = false;
        auto made =
            make_delta_from(file, next.size(), sig, options, [&](std::span<const std::uint8_t> b) -> result<void> {
                off_thread |= std::this_thread::get_id() != caller;
                largest = std::max(largest, b.size());
                ++calls;
                out.insert(out.end(), b.begin(), b.end());
                return {};
            });
        REQUIRE(made.ok());
        CHECK(out == *whole);
        CHECK(made->out_bytes == static_cast<std::int64_t>(out.size()));
        CHECK_FALSE(off_thread);
        // 256 KiB queued, plus the largest command made after (a literal run and its header).
        CHECK(largest <= (std::size_t{256} << 10) + 32768 + 9);
        CHECK(calls >= out.size() / (std::size_t{256} << 10));
    }
}

TEST_CASE("make_delta_from passes a hole that becomes literal zeros in bounded pieces") {
    constexpr std::size_t mib = 1 << 20;
    const test::bytes basis = test::random_bytes(2 * mib, 91);  // no zero blocks: zeros are literal
    test::bytes next = test::random_bytes(48 * mib, 92);
    std::fill(next.begin() + 3 * mib, next.begin() + 43 * mib, 0);
    const auto sig = loaded_signature(basis, 2048);
    for (unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        const delta_options options{{threads}};
        auto whole = make_delta(sig, next, 0, options);
        REQUIRE(whole.ok());
        test::file_with_hole file(next, 3 * mib, 43 * mib);
        test::bytes out;
        std::size_t largest = 0;
        auto made =
            make_delta_from(file, next.size(), sig, options, [&](std::span<const std::uint8_t> b) -> result<void> {
                largest = std::max(largest, b.size());
                out.insert(out.end(), b.begin(), b.end());
                return {};
            });
        REQUIRE(made.ok());
        CHECK(out == *whole);
        CHECK(largest <= (std::size_t{256} << 10) + 32768 + 9);
    }
}

TEST_CASE("make_delta_from stops at a failing sink with its error") {
    const test::bytes basis = test::random_bytes(1 << 20, 81);
    const test::bytes next = test::random_bytes(40 << 20, 82);  // nothing matches: 40 MiB of literals
    const auto sig = loaded_signature(basis, 4096);
    for (unsigned threads : {1u, 2u}) {
        CAPTURE(threads);
        memory_basis file(next);
        std::size_t taken = 0;
        int calls_after_failure = 0;
        bool failed = false;
        auto made = make_delta_from(file, next.size(), sig, delta_options{{threads}},
                                    [&](std::span<const std::uint8_t> b) -> result<void> {
                                        if (failed) ++calls_after_failure;
                                        if (taken + b.size() > (std::size_t{3} << 20)) {
                                            failed = true;
                                            return fail(errc::io_error, "out.delta: No space left on device");
                                        }
                                        taken += b.size();
                                        return {};
                                    });
        REQUIRE_FALSE(made.ok());
        CHECK(made.err().code == errc::io_error);
        CHECK(made.err().message == "out.delta: No space left on device");
        CHECK(calls_after_failure == 0);
    }
}
