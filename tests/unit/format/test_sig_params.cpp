// test_sig_params.cpp - rs_sig_args() defaults, minimum strong length, errors.
#include <rdelta/format.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>

using namespace rdelta;

namespace {
sig_params resolve(std::optional<std::uint64_t> size, std::int64_t strong = 0, std::uint32_t magic_value = 0) {
    auto r = resolve_sig_params({size, magic_value, 0, strong});
    REQUIRE(r.ok());
    return r->params;
}
}  // namespace

TEST_CASE("defaults table of rdiff 2.3.2 (docs/format.md)") {
    struct row {
        std::optional<std::uint64_t> size;  // none: a stream
        std::uint32_t block;
        std::uint32_t min_strong;
    };
    const row rows[] = {
        {std::nullopt, 2048, 12},
        {0, 256, 5},
        {255, 256, 5},
        {256, 256, 6},
        {65536, 256, 6},
        {100000, 256, 6},
        {130816, 256, 7},
        {131072, 256, 7},
        {1000000, 896, 7},
        {4 << 20, 2048, 7},
        {10000000, 3072, 7},
        {100000000, 9984, 7},
        {1ll << 30, 32768, 8},
        {4ll << 30, 65536, 8},
        {10000000000ll, 99968, 9},
        {1ll << 40, 1048576, 10},
    };
    for (const auto& r : rows) {
        CAPTURE(r.size.value_or(UINT64_MAX));
        CHECK(resolve(r.size).block_len == r.block);
        CHECK(resolve(r.size).strong_len == 32);
        CHECK(resolve(r.size, -1).strong_len == r.min_strong);
        CHECK(resolve(r.size, 0, 0x72730146).strong_len == 16);
    }
    CHECK(resolve(std::nullopt).magic == 0x72730147u);
}

TEST_CASE("strong length below the minimum warns, above the digest fails") {
    auto low = resolve_sig_params({100000, 0, 0, 2});
    REQUIRE(low.ok());
    CHECK(low->params.strong_len == 2);
    CHECK(low->warning == "strong_len=2 smaller than recommended minimum 6 for old_fsize=100000 with block_len=256");
    auto unknown_size = resolve_sig_params({std::nullopt, 0, 0, 2});
    REQUIRE(unknown_size.ok());
    CHECK(unknown_size->warning.empty());

    auto md4_long = resolve_sig_params({std::nullopt, 0x72730136, 0, 17});
    REQUIRE(!md4_long.ok());
    CHECK(md4_long.err().code == errc::param_error);
    CHECK(md4_long.err().message == "invalid strong_len=17 for magic=0x72730136");

    auto negative = resolve_sig_params({std::nullopt, 0, 0, -2});
    REQUIRE(!negative.ok());
    CHECK(negative.err().message == "invalid strong_len=18446744073709551614 for magic=0x72730147");
}

TEST_CASE("unknown magic and oversized blocks are errors") {
    auto bad = resolve_sig_params({std::nullopt, 0x72730148, 0, 0});
    REQUIRE(!bad.ok());
    CHECK(bad.err().code == errc::bad_magic);
    CHECK(bad.err().message == "invalid magic 0x72730148");
    auto huge = resolve_sig_params({std::nullopt, 0, 1ull << 31, 0});
    REQUIRE(!huge.ok());
    CHECK(huge.err().code == errc::param_error);
    CHECK(resolve_sig_params({std::nullopt, 0, (1ull << 31) - 1, 0}).ok());
}

TEST_CASE("a basis size no file can have (a -1 meant as unknown) is refused") {
    auto wrapped = resolve_sig_params({static_cast<std::uint64_t>(-1), 0, 0, 0});
    REQUIRE(!wrapped.ok());
    CHECK(wrapped.err().code == errc::param_error);
    CHECK(resolve_sig_params({std::uint64_t{1} << 50, 0, 0, 0}).ok());
}

TEST_CASE("magic numbers and formats") {
    for (auto m : {magic::md4_sig, magic::blake2_sig, magic::rk_md4_sig, magic::rk_blake2_sig}) {
        auto f = format_of_magic(static_cast<std::uint32_t>(m));
        REQUIRE(f.has_value());
        CHECK(magic_of_format(*f) == static_cast<std::uint32_t>(m));
    }
    CHECK(!format_of_magic(static_cast<std::uint32_t>(magic::delta)).has_value());
    CHECK(max_strong_len(strong_kind::md4) == 16);
    CHECK(max_strong_len(strong_kind::blake2) == 32);
    CHECK(std::string(errc_text(errc::param_error)) == "unexplained problem");
    CHECK(std::string(errc_text(errc::input_ended)) == "unexpected end of input");
}
