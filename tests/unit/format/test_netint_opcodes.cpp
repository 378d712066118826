// test_netint_opcodes.cpp - integer widths, big-endian coding and the opcode table.
#include "format/netint.hpp"
#include "format/opcodes.hpp"

#include <doctest/doctest.h>

using namespace rdelta::detail;

TEST_CASE("integer widths follow librsync") {
    CHECK(int_width(0) == 1);
    CHECK(int_width(255) == 1);
    CHECK(int_width(256) == 2);
    CHECK(int_width(65535) == 2);
    CHECK(int_width(65536) == 4);
    CHECK(int_width(0xffffffffull) == 4);
    CHECK(int_width(0x100000000ull) == 8);
}

TEST_CASE("big-endian round trip") {
    std::uint8_t buf[8];
    for (int w : {1, 2, 4, 8}) {
        const std::uint64_t v = w == 8 ? 0x0123456789abcdefull : (std::uint64_t{1} << (8 * w)) - 2;
        put_be(buf, v, w);
        CHECK(get_be(buf, w) == v);
    }
    put_be(buf, 0x72730236, 4);
    CHECK(buf[0] == 0x72);
    CHECK(buf[3] == 0x36);
}

TEST_CASE("opcode table") {
    const auto& t = opcode_table();
    CHECK(t[0x00].kind == cmd_kind::end);
    CHECK(t[0x01].kind == cmd_kind::literal);
    CHECK(t[0x01].immediate == 1);
    CHECK(t[0x40].immediate == 64);
    CHECK(t[0x41].width1 == 1);
    CHECK(t[0x42].width1 == 2);
    CHECK(t[0x43].width1 == 4);
    CHECK(t[0x44].width1 == 8);
    CHECK(t[0x45].kind == cmd_kind::copy);
    CHECK((t[0x45].width1 == 1 && t[0x45].width2 == 1));
    CHECK((t[0x47].width1 == 1 && t[0x47].width2 == 4));
    CHECK((t[0x53].width1 == 8 && t[0x53].width2 == 4));
    CHECK((t[0x54].width1 == 8 && t[0x54].width2 == 8));
    for (int op = 0x55; op <= 0xff; ++op) CHECK(t[op].kind == cmd_kind::reserved);
}
