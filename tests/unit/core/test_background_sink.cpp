// test_background_sink.cpp - output written on a thread of its own: order, errors,
// bounded buffering, and what happens without finish().
#include "test_helpers.hpp"

#include <rdelta/io.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include <doctest/doctest.h>

using namespace rdelta;

TEST_CASE("background_sink hands every byte over in order, on another thread") {
    const auto data = test::random_bytes(3'000'000, 11);
    test::bytes got;
    std::thread::id writer;
    {
        background_sink behind(
            [&](std::span<const std::uint8_t> b) -> result<void> {
                writer = std::this_thread::get_id();
                got.insert(got.end(), b.begin(), b.end());
                return {};
            },
            4096, 2);
        auto sink = behind.sink();
        // Pieces of every size, some larger than a buffer.
        for (std::size_t at = 0, n = 1; at < data.size(); at += n, n = n * 3 % 10007 + 1) {
            n = std::min(n, data.size() - at);
            REQUIRE(sink({data.data() + at, n}).ok());
        }
        REQUIRE(behind.finish().ok());
    }
    CHECK(got == data);
    CHECK(writer != std::this_thread::get_id());
}

TEST_CASE("background_sink returns the downstream error, and stops writing after it") {
    int calls = 0;
    background_sink behind(
        [&](std::span<const std::uint8_t>) -> result<void> {
            ++calls;
            return fail(errc::io_error, "out: write failed: No space left on device");
        },
        1000, 1);
    const auto data = test::random_bytes(100'000, 12);
    result<void> r;
    for (std::size_t at = 0; at < data.size() && r.ok(); at += 500) r = behind.write({data.data() + at, 500});
    CHECK_FALSE(r.ok());  // a later write reports it
    auto end = behind.finish();
    REQUIRE_FALSE(end.ok());
    CHECK(end.err().code == errc::io_error);
    CHECK(end.err().message == "out: write failed: No space left on device");
    CHECK(calls == 1);
}

TEST_CASE("background_sink bounds what waits for a slow output, and drops it without finish()") {
    std::atomic<int> calls{0};
    std::atomic<bool> release{false};
    {
        background_sink behind(
            [&](std::span<const std::uint8_t>) -> result<void> {
                ++calls;
                while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return {};
            },
            100, 2);
        const auto data = test::random_bytes(100, 13);
        REQUIRE(behind.write(data).ok());  // being written (blocked)
        REQUIRE(behind.write(data).ok());  // waiting
        std::atomic<bool> third_done{false};
        std::thread producer([&] {
            (void)behind.write(data);  // must wait: two buffers are in flight
            third_done = true;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        CHECK_FALSE(third_done);
        release = true;
        producer.join();
        CHECK(third_done);
    }  // destroyed without finish(): no hang, pending bytes dropped
    CHECK(calls >= 1);
}

TEST_CASE("produce_on_helper: the producer runs on another thread, the bytes arrive in order on the caller's") {
    const auto data = test::random_bytes(3'000'000, 14);
    test::bytes got;
    std::thread::id producer_thread, writer_thread;
    const auto done = background_sink::produce_on_helper(
        [&](std::span<const std::uint8_t> b) -> result<void> {
            writer_thread = std::this_thread::get_id();
            got.insert(got.end(), b.begin(), b.end());
            return {};
        },
        [&](const byte_sink& sink) -> result<void> {
            producer_thread = std::this_thread::get_id();
            for (std::size_t at = 0, n = 1; at < data.size(); at += n, n = n * 3 % 10007 + 1) {
                n = std::min(n, data.size() - at);
                if (auto w = sink({data.data() + at, n}); !w) return w;
            }
            return {};
        },
        4096, 2);
    REQUIRE(done.ok());
    CHECK(got == data);
    CHECK(writer_thread == std::this_thread::get_id());
    CHECK(producer_thread != std::this_thread::get_id());
}

TEST_CASE("produce_on_helper returns the writer's error to the producer and to the caller") {
    int calls = 0;
    bool producer_saw_error = false;
    const auto data = test::random_bytes(100'000, 15);
    const auto done = background_sink::produce_on_helper(
        [&](std::span<const std::uint8_t>) -> result<void> {
            ++calls;
            return fail(errc::io_error, "out: write failed: No space left on device");
        },
        [&](const byte_sink& sink) -> result<void> {
            for (std::size_t at = 0; at < data.size(); at += 500)
                if (auto w = sink({data.data() + at, 500}); !w) {
                    producer_saw_error = true;
                    return w;
                }
            return {};
        },
        1000, 1);
    REQUIRE_FALSE(done.ok());
    CHECK(done.err().code == errc::io_error);
    CHECK(done.err().message == "out: write failed: No space left on device");
    CHECK(producer_saw_error);
    CHECK(calls == 1);
}

TEST_CASE("produce_on_helper returns the producer's error, with what it wrote before it") {
    test::bytes got;
    const auto done = background_sink::produce_on_helper(
        [&](std::span<const std::uint8_t> b) -> result<void> {
            got.insert(got.end(), b.begin(), b.end());
            return {};
        },
        [&](const byte_sink& sink) -> result<void> {
            const std::uint8_t x[3] = {1, 2, 3};
            if (auto w = sink(x); !w) return w;
            return fail(errc::corrupt, "d.delta: bad command");
        },
        2, 4);
    REQUIRE_FALSE(done.ok());
    CHECK(done.err().code == errc::corrupt);
    CHECK(done.err().message == "d.delta: bad command");
    CHECK(got.size() >= 2);  // full buffers reach the writer; what the error cut short need not
}
