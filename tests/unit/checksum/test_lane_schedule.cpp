// test_lane_schedule.cpp - which kernel calls the multi-buffer scheduler makes.
#include "checksum/lane_schedule.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

using namespace rdelta::detail;

namespace {

using fake_fn = int;  // the scheduler only passes rows on

constexpr isa_kernel<fake_fn> table[] = {{16, isa::avx512, 16}, {8, isa::avx512, 8}, {4, isa::avx2, 4}};

// The calls made for `count` messages: "16x16" for a full 16-lane call, "8(5)"
// for an 8-lane call holding 5 messages, "1" for a message hashed alone.
std::string calls(isa level, std::size_t count, std::size_t min_padded) {
    std::string log;
    std::vector<std::uint8_t> out(count * 32 + 1);
    std::size_t next = 0;  // every message is hashed once, in order
    bool in_order = true;
    schedule_lanes(
        table, level, count, min_padded, 32, out.data(), 32,
        [&](const isa_kernel<fake_fn>& k, const std::size_t* lane_msg, std::uint8_t*, std::size_t) {
            std::size_t n = 0;
            for (std::size_t j = 0; j < k.size; ++j) {
                if (j > 0 && lane_msg[j] == lane_msg[j - 1]) continue;  // a spare lane repeats the last
                in_order &= lane_msg[j] == next++;
                ++n;
            }
            char call[16];
            std::snprintf(call, sizeof call, n == k.size ? "%zux%zu " : "%zu(%zu) ", k.size, n);
            log += call;
        },
        [&](std::size_t i) {
            in_order &= i == next++;
            log += "1 ";
        });
    CHECK(in_order);
    CHECK(next == count);
    return log;
}

}  // namespace

TEST_CASE("whole groups go to the widest kernel, the rest to the narrowest that holds them") {
    CHECK(calls(isa::avx512, 0, 2) == "");
    CHECK(calls(isa::avx512, 32, 2) == "16x16 16x16 ");
    CHECK(calls(isa::avx512, 29, 2) == "16x16 16(13) ");
    CHECK(calls(isa::avx512, 21, 2) == "16x16 8(5) ");
    CHECK(calls(isa::avx512, 20, 2) == "16x16 4x4 ");
    CHECK(calls(isa::avx512, 19, 2) == "16x16 4(3) ");
    CHECK(calls(isa::avx512, 18, 2) == "16x16 4(2) ");
    CHECK(calls(isa::avx512, 17, 2) == "16x16 1 ");
}

TEST_CASE("fewer messages than min_padded left over are hashed one at a time") {
    CHECK(calls(isa::avx512, 18, 3) == "16x16 1 1 ");
    CHECK(calls(isa::avx512, 19, 3) == "16x16 4(3) ");
    CHECK(calls(isa::avx512, 2, 3) == "1 1 ");
}

TEST_CASE("the level caps the kernels") {
    CHECK(calls(isa::avx2, 11, 2) == "4x4 4x4 4(3) ");
    CHECK(calls(isa::sse2, 3, 2) == "1 1 1 ");
    CHECK(calls(isa::scalar, 1, 1) == "1 ");
}
