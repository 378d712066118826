// test_signature_tap.cpp - a signature made from bytes as a delta reads them, in
// pieces and holes of every size, equals the signature of the whole file.
#include "test_helpers.hpp"

#include "signature/signature_tap.hpp"

#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <random>

using namespace rdelta;

TEST_CASE("signature_tap: pieces and zero runs of any size give make_signature's bytes") {
    std::mt19937_64 rng(37);
    for (const std::uint32_t magic : {0x72730147u, 0x72730146u, 0x72730137u, 0x72730136u}) {
        for (const std::uint32_t block : {1u, 7u, 512u, 2048u, 65536u}) {
            for (const std::uint32_t strong : {8u, 32u}) {
                if ((magic & 0xfu) == 6 && strong > 16) continue;  // MD4 sums are 16 bytes at most
                CAPTURE(magic);
                CAPTURE(block);
                CAPTURE(strong);
                const sig_params params{magic, block, strong};
                // A file of data and zero runs, fed as the delta would: data pieces and holes.
                test::bytes file;
                std::vector<std::pair<bool, std::size_t>> parts;  // (zeros, length)
                for (int k = 0; k < 12; ++k) {
                    const bool zeros = rng() % 3 == 0;
                    const std::size_t len = rng() % (3 * block + 5000);
                    parts.push_back({zeros, len});
                    if (zeros)
                        file.insert(file.end(), len, 0);
                    else {
                        auto more = test::random_bytes(len, static_cast<std::uint32_t>(rng()));
                        file.insert(file.end(), more.begin(), more.end());
                    }
                }
                auto want = make_signature(file, params, job_options{2});
                REQUIRE(want);
                test::bytes got;
                detail::signature_tap tap(params, 2, [&](std::span<const std::uint8_t> b) -> result<void> {
                    got.insert(got.end(), b.begin(), b.end());
                    return {};
                });
                std::size_t at = 0;
                for (const auto& [zeros, len] : parts) {
                    if (zeros)
                        REQUIRE(tap.zeros(len));
                    else
                        REQUIRE(tap.data({file.data() + at, len}));
                    at += len;
                }
                auto done = tap.finish();
                REQUIRE(done);
                CHECK(got == *want);
                CHECK(done->in_bytes == static_cast<std::int64_t>(file.size()));
            }
        }
    }
}

TEST_CASE("signature_tap: an empty file is the header alone") {
    test::bytes got;
    detail::signature_tap tap({0x72730147u, 2048, 32}, 1, [&](std::span<const std::uint8_t> b) -> result<void> {
        got.insert(got.end(), b.begin(), b.end());
        return {};
    });
    REQUIRE(tap.finish());
    auto want = make_signature({}, {0x72730147u, 2048, 32});
    REQUIRE(want);
    CHECK(got == *want);
}
