// test_md4_kernels.cpp - scalar and multi-buffer MD4 against RFC 1320 and OpenSSL.
//
// md4_scalar is checked against the RFC vectors; md4_many at every ISA level this
// CPU has (forced in turn) and each SIMD kernel called directly are checked
// against OpenSSL's MD4: every length 0-300 and a few long ones, 1-40 blocks (so
// every kernel width and every remainder path runs), alignment offsets 0-63, and
// messages ending right before a PROT_NONE page.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "guarded_region.hpp"
#include "isa_levels.hpp"
#include "test_helpers.hpp"

#include "checksum/md4_kernels.hpp"
#include "checksum/md4_many.hpp"
#include "cpu/cpu_features.hpp"

#include <doctest/doctest.h>
#include <openssl/md4.h>

#include <cstring>
#include <string>
#include <vector>

using namespace rdelta;
using namespace rdelta::detail;

namespace {

constexpr std::size_t md4_len = 16;
constexpr std::size_t max_count = 40;

void force_level(isa level) {
    force_isa(level);
    REQUIRE(active_isa() == level);
}

std::string scalar_hex(std::string_view s) {
    std::uint8_t out[md4_len];
    md4_scalar(reinterpret_cast<const std::uint8_t*>(s.data()), s.size(), out);
    return test::to_hex(out, md4_len);
}

void openssl_md4(const std::uint8_t* data, std::size_t len, std::uint8_t* out) {
    MD4(data, len, out);
}

// OpenSSL digests of `count` consecutive blocks, 16 bytes apart.
test::bytes reference_many(const std::uint8_t* data, std::size_t block_len, std::size_t count) {
    test::bytes ref(count * md4_len);
    for (std::size_t i = 0; i < count; ++i) openssl_md4(data + i * block_len, block_len, &ref[i * md4_len]);
    return ref;
}

// Index of the first digest in `out` (stride `stride`) that differs from `ref`, or
// -1; -2 if a byte between or after the digests was written.
int first_mismatch(const test::bytes& out, const test::bytes& ref, std::size_t count, std::size_t stride) {
    for (std::size_t i = 0; i < count; ++i)
        if (std::memcmp(&out[i * stride], &ref[i * md4_len], md4_len) != 0) return static_cast<int>(i);
    for (std::size_t i = 0; i < out.size(); ++i)
        if ((i % stride >= md4_len || i >= count * stride) && out[i] != 0xa5) return -2;
    return -1;
}

// md4_many over `count` blocks at `data`, digests `stride` apart, checked against `ref`.
int md4_many_mismatch(const std::uint8_t* data, std::size_t block_len, std::size_t count, const test::bytes& ref,
                      std::size_t stride) {
    test::bytes out((max_count + 1) * stride, 0xa5);
    md4_many(data, block_len, count, out.data(), stride);
    return first_mismatch(out, ref, count, stride);
}

using md4_kernel_fn = void (*)(const std::uint8_t* const*, std::size_t, std::uint8_t*, std::size_t) noexcept;

struct md4_kernel_case {
    const char* name;
    md4_kernel_fn fn;
    std::size_t lanes;
    isa needs;
};

// The kernels of this build's ladder, as the dispatch table lists them.
const md4_kernel_case md4_kernels[] = {
#if defined(__aarch64__)
    {"md4_x4_neon", md4_x4_neon, 4, isa::neon},
#else
    {"md4_x4_sse2", md4_x4_sse2, 4, isa::sse2},
    {"md4_x8_avx2", md4_x8_avx2, 8, isa::avx2},
    {"md4_x16_avx512", md4_x16_avx512, 16, isa::avx512},
#endif
};

}  // namespace

TEST_CASE("md4_scalar: RFC 1320 test suite") {
    CHECK(scalar_hex("") == "31d6cfe0d16ae931b73c59d7e0c089c0");
    CHECK(scalar_hex("a") == "bde52cb31de33e46245e05fbdbd6fb24");
    CHECK(scalar_hex("abc") == "a448017aaf21d8525fc10ae87aa6729d");
    CHECK(scalar_hex("message digest") == "d9130a8164549fe818874806e1c7014b");
    CHECK(scalar_hex("abcdefghijklmnopqrstuvwxyz") == "d79e1c308aa5bbcdeea8ed63df412da9");
    CHECK(scalar_hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") ==
          "043f8582f241db351ce627e153e7f0e4");
    CHECK(scalar_hex("1234567890123456789012345678901234567890"
                     "1234567890123456789012345678901234567890") == "e33b4ddc9c38f2199c3e7b164fcc0536");
}

TEST_CASE("md4_scalar and md4_one match OpenSSL at every length 0-300 and a few long ones") {
    const test::bytes data = test::random_bytes(65536 + 7, 1);
    std::vector<std::size_t> lengths;
    for (std::size_t len = 0; len <= 300; ++len) lengths.push_back(len);
    for (std::size_t len : {1000, 4096, 65536 + 7}) lengths.push_back(len);
    for (std::size_t len : lengths) {
        CAPTURE(len);
        std::uint8_t ref[md4_len], scalar[md4_len], one[md4_len];
        openssl_md4(data.data(), len, ref);
        md4_scalar(data.data(), len, scalar);
        md4_one(data.data(), len, one);
        CHECK(test::to_hex(scalar, md4_len) == test::to_hex(ref, md4_len));
        CHECK(test::to_hex(one, md4_len) == test::to_hex(ref, md4_len));
    }
}

TEST_CASE("md4_many matches OpenSSL at every ISA level: lengths, counts, strides") {
    const test::forced_isa_reset reset;
    const auto levels = test::available_levels();
    std::vector<std::size_t> lengths;
    for (std::size_t len = 0; len <= 300; ++len) lengths.push_back(len);
    for (std::size_t len : {1000, 4096, 65536 + 7}) lengths.push_back(len);
    const test::bytes data = test::random_bytes((65536 + 7) * max_count, 2);

    for (std::size_t len : lengths) {
        const test::bytes ref = reference_many(data.data(), len, max_count);
        for (isa level : levels) {
            force_level(level);
            CAPTURE(isa_name(level));
            CAPTURE(len);
            for (std::size_t count = 1; count <= max_count; ++count) {
                CAPTURE(count);
                // A digest stride other than 16 on some counts catches stride mix-ups.
                const std::size_t stride = count % 3 == 0 ? 24 : 16;
                const int bad = md4_many_mismatch(data.data(), len, count, ref, stride);
                CHECK(bad == -1);
            }
        }
    }
    // count 0 writes nothing.
    for (isa level : levels) {
        force_level(level);
        test::bytes out(md4_len, 0xa5);
        md4_many(data.data(), 64, 0, out.data(), md4_len);
        CHECK(out == test::bytes(md4_len, 0xa5));
    }
    MESSAGE("md4_many ran at ISA levels: " << test::level_list(levels));
}

TEST_CASE("md4_many at alignment offsets 0-63") {
    const test::forced_isa_reset reset;
    const auto levels = test::available_levels();
    const test::bytes data = test::random_bytes(1000 * max_count + 64, 3);
    for (std::size_t len : {0, 1, 3, 31, 55, 56, 57, 63, 64, 65, 100, 119, 120, 127, 128, 129, 200, 256, 300, 1000}) {
        for (std::size_t offset = 0; offset < 64; ++offset) {
            const std::uint8_t* p = data.data() + offset;
            const test::bytes ref = reference_many(p, len, max_count);
            for (isa level : levels) {
                force_level(level);
                CAPTURE(isa_name(level));
                CAPTURE(len);
                CAPTURE(offset);
                for (std::size_t count : {1, 3, 4, 5, 7, 8, 12, 15, 16, 17, 24, 28, 31, 32, 40}) {
                    CAPTURE(count);
                    CHECK(md4_many_mismatch(p, len, count, ref, md4_len) == -1);
                }
            }
        }
    }
    MESSAGE("md4_many (offsets) ran at ISA levels: " << test::level_list(levels));
}

TEST_CASE("md4_many never reads past the last block (PROT_NONE guard page)") {
    const test::forced_isa_reset reset;
    const auto levels = test::available_levels();
    const test::guarded_region region(301 * max_count);
    const test::bytes fill = test::random_bytes(region.usable, 4);
    std::memcpy(region.base, fill.data(), region.usable);
    for (std::size_t len = 0; len <= 300; ++len) {
        for (std::size_t count : {1, 3, 4, 7, 8, 15, 16, 31, 40}) {
            const std::uint8_t* p = region.end() - len * count;  // last block ends at the guard
            const test::bytes ref = reference_many(p, len, count);
            for (isa level : levels) {
                force_level(level);
                CAPTURE(isa_name(level));
                CAPTURE(len);
                CAPTURE(count);
                CHECK(md4_many_mismatch(p, len, count, ref, md4_len) == -1);
            }
        }
    }
    MESSAGE("md4_many (guard page) ran at ISA levels: " << test::level_list(levels));
}

TEST_CASE("multi-buffer kernels called directly: scattered lanes, guard page") {
    const test::guarded_region region(4 * 4096);
    const test::bytes fill = test::random_bytes(region.usable, 5);
    std::memcpy(region.base, fill.data(), region.usable);
    const test::bytes pool = test::random_bytes(16 * 70000, 6);

    std::vector<std::string> ran;
    for (const md4_kernel_case& k : md4_kernels) {
        if (detected_isa() < k.needs) continue;
        ran.emplace_back(k.name);
        CAPTURE(k.name);
        std::vector<std::size_t> lengths;
        for (std::size_t len = 0; len <= 300; ++len) lengths.push_back(len);
        for (std::size_t len : {1000, 4096, 65536 + 7}) lengths.push_back(len);
        for (std::size_t len : lengths) {
            CAPTURE(len);
            // Lane i reads from a slot chosen by a permutation, at its own odd offset,
            // so lanes are neither consecutive nor in address order; one lane (which
            // one varies with len) ends right before the guard page when it fits.
            const std::uint8_t* msgs[16];
            for (std::size_t i = 0; i < k.lanes; ++i) {
                const std::size_t slot = (i * 7 + 3) % k.lanes;
                msgs[i] = pool.data() + slot * 70000 + (i * 13 + len) % 61;
            }
            if (len <= region.usable) msgs[len % k.lanes] = region.end() - len;

            test::bytes out(k.lanes * 32, 0xa5);
            k.fn(msgs, len, out.data(), 32);
            test::bytes ref(k.lanes * md4_len);
            for (std::size_t i = 0; i < k.lanes; ++i) openssl_md4(msgs[i], len, &ref[i * md4_len]);
            CHECK(first_mismatch(out, ref, k.lanes, 32) == -1);
        }
    }
    std::string names;
    for (const auto& n : ran) names += (names.empty() ? "" : " ") + n;
    MESSAGE("kernels tested directly: " << names);
}
