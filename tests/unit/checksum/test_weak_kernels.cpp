// test_weak_kernels.cpp - whole-block weak-sum kernels against the plain loops.
//
// rabinkarp_block_fast()/rollsum_block_fast() at every ISA level this CPU has
// (forced in turn), and each SIMD kernel called directly, are checked against
// rabinkarp_of()/rollsum_of() (rabinkarp.hpp, rollsum.hpp), and the rollsum halves
// against the scalar rollsum_block(): every length 0-300 and some long ones (one
// of them 1 MiB of 0xff, the largest byte sums a 16-bit lane can see), alignment
// offsets 0-63, and blocks that end right before, or start right after, a
// PROT_NONE page.
#include "guarded_region.hpp"
#include "isa_levels.hpp"
#include "test_helpers.hpp"

#include "checksum/rabinkarp.hpp"
#include "checksum/rollsum.hpp"
#include "checksum/weak_block_sum.hpp"
#include "checksum/weak_dispatch.hpp"
#include "checksum/weak_kernels.hpp"
#include "cpu/cpu_features.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace rdelta;
using namespace rdelta::detail;

namespace {

struct sums {
    std::uint32_t rabinkarp, s1, s2;
    bool operator==(const sums&) const = default;
};

doctest::String toString(const sums& s) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "{rk %08x s1 %08x s2 %08x}", s.rabinkarp, s.s1, s.s2);
    return buf;
}

// The plain loops, plus the scalar halves (their digest is checked against rollsum_of).
sums reference_sums(const std::uint8_t* p, std::size_t n) {
    sums s{rabinkarp_of(p, n), 0, 0};
    rollsum_block(p, n, s.s1, s.s2);
    REQUIRE(((s.s2 << 16) | (s.s1 & 0xffff)) == rollsum_of(p, n));
    return s;
}

sums fast(const std::uint8_t* p, std::size_t n) {
    sums s{rabinkarp_block_fast(p, n), 0, 0};
    rollsum_block_fast(p, n, s.s1, s.s2);
    return s;
}

using rabinkarp_fn = std::uint32_t (*)(const std::uint8_t*, std::size_t) noexcept;
using rollsum_fn = void (*)(const std::uint8_t*, std::size_t, std::uint32_t*, std::uint32_t*) noexcept;

struct weak_kernel_case {
    const char* name;
    isa needs;
    rabinkarp_fn rabinkarp;  // nullptr: this level has none (the scalar loop stands in)
    rollsum_fn rollsum;
};

// The kernels of this build's ladder, as the dispatch tables list them.
const weak_kernel_case weak_kernels[] = {
#if defined(__aarch64__)
    {"neon", isa::neon, rabinkarp_block_neon, rollsum_block_neon},
#else
    {"sse2", isa::sse2, rabinkarp_block_sse2, rollsum_block_sse2},
    {"avx2", isa::avx2, rabinkarp_block_avx2, rollsum_block_avx2},
    {"avx512", isa::avx512, rabinkarp_block_avx512, rollsum_block_avx512},
#endif
};

sums direct(const weak_kernel_case& k, const std::uint8_t* p, std::size_t n) {
    sums s{k.rabinkarp ? k.rabinkarp(p, n) : rabinkarp_of(p, n), 0, 0};
    k.rollsum(p, n, &s.s1, &s.s2);
    return s;
}

std::vector<const weak_kernel_case*> supported_kernels() {
    std::vector<const weak_kernel_case*> out;
    for (const weak_kernel_case& k : weak_kernels)
        if (detected_isa() >= k.needs) out.push_back(&k);
    return out;
}

std::string kernel_list(const std::vector<const weak_kernel_case*>& ks) {
    std::string s;
    for (const weak_kernel_case* k : ks) s += std::string(s.empty() ? "" : " ") + k->name;
    return s;
}

std::vector<std::size_t> test_lengths() {
    std::vector<std::size_t> lengths;
    for (std::size_t len = 0; len <= 300; ++len) lengths.push_back(len);
    for (std::size_t len : {511, 512, 513, 1000, 4095, 4096, 4097, 65536 + 7}) lengths.push_back(len);
    return lengths;
}

}  // namespace

TEST_CASE("weak block sums match the plain loops at every ISA level and length") {
    const test::forced_isa_reset reset;
    const auto levels = test::available_levels();
    const test::bytes data = test::random_bytes(65536 + 7, 11);
    const test::bytes low = test::random_bytes(4097, 12, 3);  // many zeros
    for (std::size_t len : test_lengths()) {
        const sums ref = reference_sums(data.data(), len);
        const sums ref_low = len <= low.size() ? reference_sums(low.data(), len) : sums{};
        for (isa level : levels) {
            force_isa(level);
            REQUIRE(active_isa() == level);
            CAPTURE(std::string(isa_name(level)));
            CAPTURE(len);
            CHECK(fast(data.data(), len) == ref);
            if (len <= low.size()) CHECK(fast(low.data(), len) == ref_low);
        }
    }
    MESSAGE("weak block sums ran at ISA levels: " << test::level_list(levels));
}

TEST_CASE("weak block sums of long runs of 0xff and 0x00 (lane overflow)") {
    const test::forced_isa_reset reset;
    const auto levels = test::available_levels();
    for (std::uint8_t fill : {std::uint8_t{0xff}, std::uint8_t{0x00}}) {
        for (std::size_t len : {std::size_t{1} << 20, (std::size_t{1} << 20) + 127, std::size_t{3} << 20}) {
            const test::bytes data(len, fill);
            const sums ref = reference_sums(data.data(), len);
            for (isa level : levels) {
                force_isa(level);
                CAPTURE(std::string(isa_name(level)));
                CAPTURE(len);
                CAPTURE(int{fill});
                CHECK(fast(data.data(), len) == ref);
            }
        }
    }
    MESSAGE("weak block sums (0xff/0x00 runs) ran at ISA levels: " << test::level_list(levels));
}

TEST_CASE("weak block sums at alignment offsets 0-63") {
    const test::forced_isa_reset reset;
    const auto levels = test::available_levels();
    const test::bytes data = test::random_bytes(4096 + 64 + 64, 13);
    std::vector<std::size_t> lengths;
    for (std::size_t len = 0; len <= 300; ++len) lengths.push_back(len);
    lengths.push_back(4096 + 63);
    for (std::size_t offset = 0; offset < 64; ++offset) {
        const std::uint8_t* p = data.data() + offset;
        for (std::size_t len : lengths) {
            const sums ref = reference_sums(p, len);
            for (isa level : levels) {
                force_isa(level);
                CAPTURE(std::string(isa_name(level)));
                CAPTURE(offset);
                CAPTURE(len);
                CHECK(fast(p, len) == ref);
            }
        }
    }
    MESSAGE("weak block sums (offsets) ran at ISA levels: " << test::level_list(levels));
}

TEST_CASE("weak block sums never read outside the block (PROT_NONE guard pages)") {
    const test::forced_isa_reset reset;
    const auto levels = test::available_levels();
    const test::guarded_region region(8192, test::guarded_ends::before_and_after);
    const test::bytes fill = test::random_bytes(region.usable, 14);
    std::memcpy(region.base, fill.data(), region.usable);
    std::vector<std::size_t> lengths;
    for (std::size_t len = 0; len <= 300; ++len) lengths.push_back(len);
    for (std::size_t len : {1000, 4095, 4096, 4097, 8191, 8192}) lengths.push_back(len);
    for (std::size_t len : lengths) {
        const std::uint8_t* at_end = region.end() - len;  // ends at the guard after
        const std::uint8_t* at_start = region.base;       // starts at the guard before
        const sums ref_end = reference_sums(at_end, len), ref_start = reference_sums(at_start, len);
        for (isa level : levels) {
            force_isa(level);
            CAPTURE(std::string(isa_name(level)));
            CAPTURE(len);
            CHECK(fast(at_end, len) == ref_end);
            CHECK(fast(at_start, len) == ref_start);
        }
    }
    MESSAGE("weak block sums (guard pages) ran at ISA levels: " << test::level_list(levels));
}

TEST_CASE("weak-sum kernels called directly: lengths, offsets, guard pages, 0xff runs") {
    const auto ks = supported_kernels();
    const test::bytes data = test::random_bytes(65536 + 7 + 64, 15);
    const test::bytes ones(std::size_t{1} << 20, 0xff);
    const test::guarded_region region(8192, test::guarded_ends::before_and_after);
    std::memcpy(region.base, data.data(), region.usable);
    for (const weak_kernel_case* k : ks) {
        CAPTURE(std::string(k->name));
        for (std::size_t len : test_lengths()) {
            CAPTURE(len);
            for (std::size_t offset : {0, 1, 7, 31, 33, 63}) {
                CAPTURE(offset);
                CHECK(direct(*k, data.data() + offset, len) == reference_sums(data.data() + offset, len));
            }
            if (len <= region.usable) {
                CHECK(direct(*k, region.end() - len, len) == reference_sums(region.end() - len, len));
                CHECK(direct(*k, region.base, len) == reference_sums(region.base, len));
            }
        }
        for (std::size_t len : {ones.size() - 5, ones.size()}) {
            CAPTURE(len);
            CHECK(direct(*k, ones.data(), len) == reference_sums(ones.data(), len));
        }
    }
    MESSAGE("weak-sum kernels tested directly: " << kernel_list(ks));
}
