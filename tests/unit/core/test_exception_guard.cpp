// test_exception_guard.cpp - no exception crosses the library's API: a reader or a
// worker that throws std::bad_alloc (or cannot start a thread) gives mem_error,
// and parallel_for passes a worker's exception to its caller after all are done.
#include "test_helpers.hpp"

#include "core/parallel.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <new>
#include <system_error>

using namespace rdelta;

namespace {

/// A file that throws once `throw_at` bytes have been asked for: bad_alloc, or a
/// system_error as a thread that could not be started reports itself.
class throwing_reader final : public basis_reader {
public:
    throwing_reader(test::bytes data, std::uint64_t throw_at, bool system = false)
        : data_(std::move(data)), throw_at_(throw_at), system_(system) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos + out.size() > throw_at_) {
            if (system_) throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
            throw std::bad_alloc();
        }
        const std::size_t n = pos >= data_.size() ? 0 : std::min<std::size_t>(out.size(), data_.size() - pos);
        if (n) std::memcpy(out.data(), data_.data() + pos, n);
        return n;
    }
    std::optional<std::uint64_t> size() const override { return data_.size(); }

private:
    test::bytes data_;
    std::uint64_t throw_at_;
    bool system_;
};

}  // namespace

TEST_CASE("make_signature_from and make_delta_from: an exception inside is mem_error") {
    const test::bytes data = test::random_bytes(1 << 20, 3);
    const sig_params params{static_cast<std::uint32_t>(magic::rk_blake2_sig), 1024, 32};
    for (unsigned threads : {1u, 4u}) {
        for (bool system : {false, true}) {
            CAPTURE(threads);
            CAPTURE(system);
            throwing_reader file(data, 600000, system);
            auto made = make_signature_from(file, data.size(), params, job_options{threads},
                                            [](std::span<const std::uint8_t>) -> result<void> { return {}; });
            REQUIRE_FALSE(made);
            CHECK(made.err().code == errc::mem_error);
            CHECK(made.err().message.find("out of memory") != std::string::npos);

            auto sig = load_signature(*make_signature(data, params));
            REQUIRE(sig);
            REQUIRE(sig->build_index());
            throwing_reader new_file(data, 600000, system);
            auto delta = make_delta_from(new_file, data.size(), *sig, delta_options{{threads}},
                                         [](std::span<const std::uint8_t>) -> result<void> { return {}; });
            REQUIRE_FALSE(delta);
            CHECK(delta.err().code == errc::mem_error);
        }
    }
}

TEST_CASE("a job whose basis throws fails with mem_error, then keeps failing") {
    const test::bytes basis = test::random_bytes(100000, 5);
    const sig_params params{static_cast<std::uint32_t>(magic::rk_blake2_sig), 2048, 32};
    auto sig = load_signature(*make_signature(basis, params));
    REQUIRE(sig);
    REQUIRE(sig->build_index());
    auto delta = make_delta(*sig, basis);  // all COPY
    REQUIRE(delta);
    throwing_reader reader(basis, 0);
    auto j = make_patch_job(reader);
    std::uint8_t out[4096];
    buffers io{delta->data(), delta->size(), true, out, sizeof out};
    auto first = j->iterate(io);
    REQUIRE_FALSE(first);
    CHECK(first.err().code == errc::mem_error);
    buffers again{delta->data(), 0, true, out, sizeof out};
    auto second = j->iterate(again);
    REQUIRE_FALSE(second);
    CHECK(second.err().code == errc::mem_error);
}

TEST_CASE("parallel_for: a worker's exception reaches the caller once all are done") {
    for (unsigned threads : {1u, 2u, 8u}) {
        CAPTURE(threads);
        std::atomic<int> running{0}, ran{0};
        bool caught = false;
        try {
            rdelta::detail::parallel_for(1000, threads, [&](std::size_t i) {
                ++running;
                ++ran;
                if (i == 17) {
                    --running;
                    throw std::bad_alloc();
                }
                --running;
            });
        } catch (const std::bad_alloc&) {
            caught = true;
        }
        CHECK(caught);
        CHECK(running.load() == 0);  // nobody still inside fn after parallel_for returned
        CHECK(ran.load() < 1000 + 8);
        // The pool still works afterwards.
        std::atomic<std::size_t> sum{0};
        rdelta::detail::parallel_for(100, threads, [&](std::size_t i) { sum += i; });
        CHECK(sum.load() == 4950);
    }
}
