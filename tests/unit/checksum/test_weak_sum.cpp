// test_weak_sum.cpp - rollsum and RabinKarp: reference vectors and rolling == recomputing.
#include "test_helpers.hpp"

#include "checksum/weak_block_sum.hpp"
#include "checksum/weak_sum.hpp"

#include <doctest/doctest.h>

using namespace rdelta;
using namespace rdelta::detail;
using rdelta::test::bytes;

namespace {
bytes iota_bytes(int from, int to) {
    bytes b;
    for (int i = from; i < to; ++i) b.push_back(static_cast<std::uint8_t>(i));
    return b;
}
}  // namespace

TEST_CASE("rollsum matches librsync's vectors") {
    auto abc = test::from_string("abc");
    CHECK(rollsum_of(abc.data(), 3) == 0x03040183u);
    CHECK(rollsum_of(nullptr, 0) == 0u);
    bytes zero{0};
    CHECK(rollsum_of(zero.data(), 1) == 0x001f001fu);
    CHECK(rollsum_of(iota_bytes(0, 4).data(), 4) == 0x01400082u);
    CHECK(rollsum_of(iota_bytes(1, 5).data(), 4) == 0x014a0086u);
    CHECK(rollsum_of(iota_bytes(4, 8).data(), 4) == 0x01680092u);
    CHECK(rollsum_of(iota_bytes(5, 8).data(), 3) == 0x00dc006fu);
    CHECK(rollsum_of(iota_bytes(0, 256).data(), 256) == 0x3a009e80u);
}

TEST_CASE("RabinKarp matches librsync's vectors") {
    auto abc = test::from_string("abc");
    CHECK(rabinkarp_of(abc.data(), 3) == 0x66298923u);
    CHECK(rabinkarp_of(nullptr, 0) == 1u);
    bytes zero{0};
    CHECK(rabinkarp_of(zero.data(), 1) == 0x08104225u);
    CHECK(rabinkarp_of(iota_bytes(0, 4).data(), 4) == 0xaf981e97u);
    CHECK(rabinkarp_of(iota_bytes(1, 5).data(), 4) == 0xe2ef15f3u);
    CHECK(rabinkarp_of(iota_bytes(4, 8).data(), 4) == 0x7cf3fc07u);
    CHECK(rabinkarp_of(iota_bytes(5, 8).data(), 3) == 0xf284a77fu);
    CHECK(rabinkarp_of(iota_bytes(0, 256).data(), 256) == 0xc1972381u);
    bytes zeros(256, 0);
    CHECK(rabinkarp_of(zeros.data(), 256) == 0x55101c01u);
}

TEST_CASE("rotating and rolling out equal recomputing") {
    auto abcd = test::from_string("abcd");
    rollsum r;
    r.init(abcd.data(), 3);
    r.rotate('a', 'd');
    CHECK(r.digest() == 0x030a0186u);
    rabinkarp k;
    k.init(abcd.data(), 3);
    k.rotate('a', 'd');
    CHECK(k.digest() == 0x13f0e4a2u);
    k.rollout('b');
    CHECK(k.digest() == 0xc400ae0cu);

    const auto data = test::random_bytes(4000, 7);
    for (std::size_t window : {1u, 2u, 16u, 100u, 1000u}) {
        CAPTURE(window);
        rollsum rs;
        rabinkarp rk;
        rs.init(data.data(), window);
        rk.init(data.data(), window);
        for (std::size_t pos = 1; pos + window <= data.size(); ++pos) {
            rs.rotate(data[pos - 1], data[pos + window - 1]);
            rk.rotate(data[pos - 1], data[pos + window - 1]);
            REQUIRE(rs.digest() == rollsum_of(data.data() + pos, window));
            REQUIRE(rk.digest() == rabinkarp_of(data.data() + pos, window));
        }
        // Shrink from the front down to nothing, as the tail of a delta scan does.
        std::size_t start = data.size() - window;
        for (std::size_t left = window; left > 0; --left, ++start) {
            rs.rollout(data[start]);
            rk.rollout(data[start]);
            REQUIRE(rs.digest() == rollsum_of(data.data() + start + 1, left - 1));
            REQUIRE(rk.digest() == rabinkarp_of(data.data() + start + 1, left - 1));
        }
    }
}

TEST_CASE("rolling in equals recomputing") {
    const auto data = test::random_bytes(500, 3);
    rollsum rs;
    rabinkarp rk;
    for (std::size_t n = 0; n < data.size(); ++n) {
        rs.rollin(data[n]);
        rk.rollin(data[n]);
        REQUIRE(rs.digest() == rollsum_of(data.data(), n + 1));
        REQUIRE(rk.digest() == rabinkarp_of(data.data(), n + 1));
    }
}

TEST_CASE("lookup keys: mix32 for rollsum, and key 0 becomes 0xffffffff") {
    CHECK(weak_key(weak_kind::rabinkarp, 0x1234u) == 0x1234u);
    CHECK(weak_key(weak_kind::rabinkarp, 0u) == 0xffffffffu);
    CHECK(weak_key(weak_kind::rollsum, 0x1234u) == mix32(0x1234u));
    CHECK(mix32(0) == 0u);
    CHECK(weak_key(weak_kind::rollsum, 0u) == 0xffffffffu);
}

TEST_CASE("block kernels equal the plain loops at every length and alignment") {
    const auto data = test::random_bytes(700, 13);
    for (std::size_t offset = 0; offset < 16; ++offset) {
        for (std::size_t n = 0; n + offset <= 600; n += (n < 80 ? 1 : 37)) {
            CAPTURE(offset);
            CAPTURE(n);
            const std::uint8_t* p = data.data() + offset;
            REQUIRE(rabinkarp_block(p, n) == rabinkarp_of(p, n));
            REQUIRE(weak_sum_of(weak_kind::rabinkarp, p, n) == rabinkarp_of(p, n));
            REQUIRE(weak_sum_of(weak_kind::rollsum, p, n) == rollsum_of(p, n));
            rabinkarp k;
            k.init(p, n);
            std::uint32_t m = 1;
            for (std::size_t i = 0; i < n; ++i) m *= rabinkarp::mult;
            REQUIRE(k.mult_pow == m);
        }
    }
    const test::bytes ff(100000, 0xff);
    CHECK(weak_sum_of(weak_kind::rollsum, ff.data(), ff.size()) == rollsum_of(ff.data(), ff.size()));
    CHECK(rabinkarp_block(ff.data(), ff.size()) == rabinkarp_of(ff.data(), ff.size()));
}

TEST_CASE("weak sums fed in pieces equal the whole block's") {
    const auto data = test::random_bytes(70000, 5);
    for (weak_kind kind : {weak_kind::rollsum, weak_kind::rabinkarp}) {
        for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{128}, std::size_t{4096}, data.size()}) {
            CAPTURE(static_cast<int>(kind));
            CAPTURE(piece);
            weak_sum_parts parts(kind);
            for (std::size_t at = 0; at < data.size(); at += piece)
                parts.update(data.data() + at, std::min(piece, data.size() - at));
            CHECK(parts.digest() == weak_sum_of(kind, data.data(), data.size()));
        }
        weak_sum_parts none(kind);  // no piece at all: the empty block
        CHECK(none.digest() == weak_sum_of(kind, data.data(), 0));
    }
}
