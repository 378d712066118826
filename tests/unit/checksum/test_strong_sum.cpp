// test_strong_sum.cpp - MD4 (RFC 1320) and BLAKE2b-256 (outlen 32, not truncated -512).
#include "test_helpers.hpp"

#include "checksum/strong_sum.hpp"

#include <doctest/doctest.h>

using namespace rdelta;
using namespace rdelta::detail;

namespace {
std::string digest_hex(strong_kind kind, const test::bytes& data, std::size_t n) {
    std::uint8_t out[digest_stride];
    strong_sum(kind, data.data(), data.size(), out);
    return test::to_hex(out, n);
}
}  // namespace

TEST_CASE("MD4 test vectors") {
    CHECK(digest_hex(strong_kind::md4, {}, 16) == "31d6cfe0d16ae931b73c59d7e0c089c0");
    CHECK(digest_hex(strong_kind::md4, test::from_string("abc"), 16) == "a448017aaf21d8525fc10ae87aa6729d");
    CHECK(digest_hex(strong_kind::md4, test::from_string("message digest"), 16) == "d9130a8164549fe818874806e1c7014b");
    test::bytes all(256);
    for (int i = 0; i < 256; ++i) all[i] = static_cast<std::uint8_t>(i);
    CHECK(digest_hex(strong_kind::md4, all, 6) == "298a05bc506e");
}

TEST_CASE("BLAKE2b with a 32-byte output parameter") {
    CHECK(digest_hex(strong_kind::blake2, test::from_string("abc"), 32) ==
          "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
    test::bytes all(256);
    for (int i = 0; i < 256; ++i) all[i] = static_cast<std::uint8_t>(i);
    // BLAKE2b-512 would start 1ecc896f34d3: the output length is in the parameter block.
    CHECK(digest_hex(strong_kind::blake2, all, 6) == "39a7eb9fedc1");
}

TEST_CASE("strong_sum_many equals one block at a time") {
    const auto data = test::random_bytes(10 * 37, 11);
    for (auto kind : {strong_kind::md4, strong_kind::blake2}) {
        std::uint8_t many[10 * digest_stride], one[digest_stride];
        strong_sum_many(kind, data.data(), 37, 10, many);
        for (int i = 0; i < 10; ++i) {
            strong_sum(kind, data.data() + i * 37, 37, one);
            CHECK(test::to_hex(many + i * digest_stride, max_strong_len(kind)) ==
                  test::to_hex(one, max_strong_len(kind)));
        }
    }
}

TEST_CASE("strong_sum_gather_var equals one message at a time") {
    const auto data = test::random_bytes(3000, 12);
    // Overlapping messages of different lengths, as tail windows are: all end at
    // the end of the data. Among them 0 bytes and both sides of a 128-byte block.
    const std::size_t lens[] = {1000, 999, 0, 129, 128, 127, 1, 2999, 256, 3000, 64};
    constexpr std::size_t count = std::size(lens);
    const std::uint8_t* msgs[count];
    for (std::size_t i = 0; i < count; ++i) msgs[i] = data.data() + data.size() - lens[i];
    for (auto kind : {strong_kind::md4, strong_kind::blake2}) {
        std::uint8_t many[count * digest_stride], one[digest_stride];
        strong_sum_gather_var(kind, msgs, lens, count, many);
        for (std::size_t i = 0; i < count; ++i) {
            CAPTURE(i);
            strong_sum(kind, msgs[i], lens[i], one);
            CHECK(test::to_hex(many + i * digest_stride, max_strong_len(kind)) ==
                  test::to_hex(one, max_strong_len(kind)));
        }
    }
}
