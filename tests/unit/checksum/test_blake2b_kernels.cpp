// test_blake2b_kernels.cpp - multi-buffer BLAKE2b-256 against libb2 at every ISA level.
//
// libb2's blake2b() with outlen 32 is the oracle. Every available level is
// forced in turn and named in the output, so a SIMD path that silently falls
// back to scalar cannot pass unnoticed. The kernels are also called directly
// with scattered, differently aligned lanes and with every lane ending at a
// PROT_NONE guard page. The different-length kernels and blake2b256_gather_var
// get the same treatment over mixes of lengths that finish lanes at different
// blocks.
#include "isa_levels.hpp"
#include "test_helpers.hpp"

#include "checksum/blake2b_kernels.hpp"
#include "checksum/blake2b_many.hpp"
#include "cpu/cpu_features.hpp"

#include <blake2.h>
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using namespace rdelta;
using namespace rdelta::detail;

namespace {

constexpr std::size_t digest_len = 32;

// The highest level this run may use: what the CPU supports, capped by
// RDELTA_FORCE_ISA but not by an earlier force_isa().
isa highest_level() {
    reset_forced_isa();
    return active_isa();
}

// Lengths every test sweeps: 0..300 crosses the 128-byte block boundary twice,
// the rest exercise many full blocks before the final one.
std::vector<std::size_t> all_lengths() {
    std::vector<std::size_t> lengths;
    for (std::size_t len = 0; len <= 300; ++len) lengths.push_back(len);
    for (std::size_t len : {1000, 4096, 65536 + 7}) lengths.push_back(len);
    return lengths;
}

std::string reference_hex(const std::uint8_t* data, std::size_t len) {
    std::uint8_t out[digest_len];
    REQUIRE(blake2b(out, data, nullptr, digest_len, len, 0) == 0);
    return test::to_hex(out, digest_len);
}

std::string one_hex(const test::bytes& data) {
    std::uint8_t out[digest_len];
    blake2b256_one(data.data(), data.size(), out);
    return test::to_hex(out, digest_len);
}

// Runs blake2b256_many over `count` blocks of `len` bytes at `data` and checks
// each digest against libb2. Digests are written with a stride wider than 32 so
// that a write past a digest hits a guard byte that must stay untouched.
void check_many(const std::uint8_t* data, std::size_t len, std::size_t count) {
    constexpr std::size_t stride = digest_len + 8;
    constexpr std::uint8_t guard = 0xa5;
    std::vector<std::uint8_t> out(count * stride + 8, guard);
    blake2b256_many(data, len, count, out.data(), stride);
    for (std::size_t i = 0; i < count; ++i) {
        CAPTURE(i);
        REQUIRE(test::to_hex(out.data() + i * stride, digest_len) == reference_hex(data + i * len, len));
        for (std::size_t k = digest_len; k < stride; ++k) REQUIRE(out[i * stride + k] == guard);
    }
    REQUIRE(out[count * stride] == guard);
}

// Two pages per lane, the second PROT_NONE: lane i's message ends exactly where
// its guard page begins.
class guarded_pages {
public:
    explicit guarded_pages(std::size_t lanes)
        : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))), lanes_(lanes), size_(2 * page_ * lanes) {
        void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(p != MAP_FAILED);
        base_ = static_cast<std::uint8_t*>(p);
        for (std::size_t i = 0; i < lanes_; ++i) REQUIRE(mprotect(base_ + (2 * i + 1) * page_, page_, PROT_NONE) == 0);
    }
    guarded_pages(const guarded_pages&) = delete;
    guarded_pages& operator=(const guarded_pages&) = delete;
    ~guarded_pages() { munmap(base_, size_); }

    std::size_t page() const { return page_; }
    /// The writable page of lane i; its last byte is just before a guard page.
    std::uint8_t* lane(std::size_t i) const { return base_ + 2 * i * page_; }
    std::uint8_t* lane_end(std::size_t i) const { return lane(i) + page_; }

private:
    std::size_t page_, lanes_, size_;
    std::uint8_t* base_ = nullptr;
};

using blake2b_kernel_fn = void (*)(const std::uint8_t* const*, std::size_t, std::uint8_t*, std::size_t) noexcept;

struct blake2b_kernel_case {
    const char* name;
    isa level;
    std::size_t lanes;
    blake2b_kernel_fn fn;
};

// The kernels of this build's ladder: none on aarch64 (blake2b_many.cpp says why),
// where blake2b256_many runs libb2 at every level.
const std::vector<blake2b_kernel_case> blake2b_kernels = {
#if !defined(__aarch64__)
    {"blake2b256_x4_avx2", isa::avx2, 4, blake2b256_x4_avx2},
    {"blake2b256_x8_avx512", isa::avx512, 8, blake2b256_x8_avx512},
    {"blake2b256_x16_avx512", isa::avx512, 16, blake2b256_x16_avx512},
#endif
};

void check_kernel_lanes(const blake2b_kernel_case& k, const std::uint8_t* const* msgs, std::size_t len) {
    constexpr std::size_t stride = 48;
    std::vector<std::uint8_t> out(k.lanes * stride, 0xa5);
    k.fn(msgs, len, out.data(), stride);
    for (std::size_t i = 0; i < k.lanes; ++i) {
        CAPTURE(i);
        REQUIRE(test::to_hex(out.data() + i * stride, digest_len) == reference_hex(msgs[i], len));
        for (std::size_t b = digest_len; b < stride; ++b) REQUIRE(out[i * stride + b] == 0xa5);
    }
}

}  // namespace

TEST_CASE("BLAKE2b-256 test vectors (outlen 32, not truncated BLAKE2b-512)") {
    CHECK(one_hex(test::from_string("abc")) == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
    test::bytes counting(256);
    for (std::size_t i = 0; i < counting.size(); ++i) counting[i] = static_cast<std::uint8_t>(i);
    CHECK(one_hex(counting).substr(0, 12) == "39a7eb9fedc1");

    // The same vectors through every level; "abc" x 20 reaches every kernel.
    const test::forced_isa_reset reset;
    const test::bytes abc = test::from_string("abc");
    for (isa level : test::available_levels()) {
        const std::string level_name = isa_name(level);  // a std::string, so doctest prints the text
        CAPTURE(level_name);
        force_isa(level);
        REQUIRE(active_isa() == level);
        std::vector<std::uint8_t> abc20;
        for (int i = 0; i < 20; ++i) abc20.insert(abc20.end(), abc.begin(), abc.end());
        std::vector<std::uint8_t> out(20 * digest_len);
        blake2b256_many(abc20.data(), abc.size(), 20, out.data(), digest_len);
        for (std::size_t i = 0; i < 20; ++i)
            CHECK(test::to_hex(out.data() + i * digest_len, digest_len) ==
                  "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
        blake2b256_many(counting.data(), counting.size(), 1, out.data(), digest_len);
        CHECK(test::to_hex(out.data(), 6) == "39a7eb9fedc1");
    }
}

TEST_CASE("blake2b256_many matches libb2 at every ISA level, length and count") {
    const test::forced_isa_reset reset;
    const std::vector<std::size_t> lengths = all_lengths();
    for (isa level : test::available_levels()) {
        const std::string level_name = isa_name(level);  // a std::string, so doctest prints the text
        CAPTURE(level_name);
        force_isa(level);
        REQUIRE(active_isa() == level);
        MESSAGE("blake2b256_many checked at level " << level_name);
        for (std::size_t len : lengths) {
            CAPTURE(len);
            // Counts 1..20 take every path: 8-wide groups, a 4-wide group, and
            // 0-3 leftover blocks for libb2.
            const test::bytes data = test::random_bytes(20 * len, len + 1);
            for (std::size_t count = 1; count <= 20; ++count) {
                CAPTURE(count);
                check_many(data.data(), len, count);
            }
        }
        // count 0 writes nothing.
        std::uint8_t untouched[digest_len];
        std::memset(untouched, 0x5a, sizeof untouched);
        blake2b256_many(nullptr, 64, 0, untouched, digest_len);
        for (std::uint8_t b : untouched) REQUIRE(b == 0x5a);
    }
}

TEST_CASE("blake2b256_many at every alignment offset 0..63") {
    const test::forced_isa_reset reset;
    for (isa level : test::available_levels()) {
        const std::string level_name = isa_name(level);  // a std::string, so doctest prints the text
        CAPTURE(level_name);
        force_isa(level);
        for (std::size_t len : {0, 1, 31, 127, 128, 129, 255, 256, 257, 300, 1000}) {
            CAPTURE(len);
            constexpr std::size_t count = 15;  // one 8-group, one 4-group, three leftovers
            const test::bytes data = test::random_bytes(count * len + 64, len + 7);
            for (std::size_t offset = 0; offset < 64; ++offset) {
                CAPTURE(offset);
                check_many(data.data() + offset, len, count);
            }
        }
    }
}

TEST_CASE("blake2b256_many never reads past the last block (guard page)") {
    const test::forced_isa_reset reset;
    const guarded_pages pages(1);
    const test::bytes fill = test::random_bytes(pages.page(), 99);
    std::memcpy(pages.lane(0), fill.data(), fill.size());
    for (isa level : test::available_levels()) {
        const std::string level_name = isa_name(level);  // a std::string, so doctest prints the text
        CAPTURE(level_name);
        force_isa(level);
        for (std::size_t len = 0; len <= 300; ++len) {
            CAPTURE(len);
            for (std::size_t count = 1; count <= 20; ++count) {
                if (count * len > pages.page()) break;
                CAPTURE(count);
                check_many(pages.lane_end(0) - count * len, len, count);
            }
        }
    }
}

TEST_CASE("multi-buffer kernels called directly: scattered, misaligned lanes and guard pages") {
    const std::vector<std::size_t> lengths = all_lengths();
    if (blake2b_kernels.empty()) MESSAGE("no BLAKE2b kernels on this CPU family: blake2b256_many uses libb2");
    for (const blake2b_kernel_case& k : blake2b_kernels) {
        const std::string kernel_name = k.name;
        CAPTURE(kernel_name);
        if (highest_level() < k.level) {
            MESSAGE("skipped " << kernel_name << ": CPU lacks " << std::string(isa_name(k.level))
                               << " or RDELTA_FORCE_ISA excludes it");
            continue;
        }
        MESSAGE("kernel " << kernel_name << " checked directly");

        // Each lane in its own allocation at its own alignment, in an order that
        // is not the lane order, with its own content.
        for (std::size_t len : lengths) {
            CAPTURE(len);
            std::vector<test::bytes> storage;
            for (std::size_t i = 0; i < k.lanes; ++i) storage.push_back(test::random_bytes(len + 64, 1000 * len + i));
            std::vector<const std::uint8_t*> msgs(k.lanes);
            for (std::size_t i = 0; i < k.lanes; ++i) {
                const std::size_t owner = (i * 3 + 1) % k.lanes;
                msgs[i] = storage[owner].data() + (owner * 13 + len) % 64;
            }
            check_kernel_lanes(k, msgs.data(), len);
        }

        // Every lane ends exactly at its own PROT_NONE page.
        const guarded_pages pages(k.lanes);
        for (std::size_t i = 0; i < k.lanes; ++i) {
            const test::bytes fill = test::random_bytes(pages.page(), 500 + i);
            std::memcpy(pages.lane(i), fill.data(), fill.size());
        }
        for (std::size_t len = 0; len <= pages.page(); len += (len < 300 ? 1 : 397)) {
            CAPTURE(len);
            std::vector<const std::uint8_t*> msgs(k.lanes);
            for (std::size_t i = 0; i < k.lanes; ++i) msgs[i] = pages.lane_end(i) - len;
            check_kernel_lanes(k, msgs.data(), len);
        }
    }
}

// ---- Messages of different lengths (the _var kernels, blake2b256_gather_var) ----

namespace {

using var_kernel_fn = void (*)(const std::uint8_t* const*, const std::size_t*, std::uint8_t*, std::size_t) noexcept;

struct var_kernel_case {
    const char* name;
    isa level;
    std::size_t lanes;
    var_kernel_fn fn;
};

const std::vector<var_kernel_case> var_kernels = {
#if !defined(__aarch64__)
    {"blake2b256_x4_var_avx2", isa::avx2, 4, blake2b256_x4_var_avx2},
    {"blake2b256_x8_var_avx512", isa::avx512, 8, blake2b256_x8_var_avx512},
#endif
};

using length_mix = std::vector<std::size_t>;

// Length mixes for n messages that stress the per-lane bookkeeping: all equal;
// empty and one-byte messages among long ones (lanes finish many blocks apart,
// the longest first, last or in the middle); neighbours one byte apart across
// each 128-byte block boundary (same block count or one more, full or short
// final block); and random mixes, short and long.
std::vector<length_mix> length_mixes(std::size_t n) {
    std::vector<length_mix> mixes;
    for (std::size_t len : {0, 1, 127, 128, 129, 1000}) mixes.emplace_back(n, len);
    const std::size_t spread[] = {0, 1, 1000, 4096, 1, 0, 3000, 1, 1001};
    for (std::size_t rotate = 0; rotate < 3; ++rotate) {
        length_mix mix(n);
        for (std::size_t i = 0; i < n; ++i) mix[i] = spread[(i + rotate * 3) % std::size(spread)];
        mixes.push_back(mix);
    }
    for (std::size_t boundary : {128, 256, 384}) {
        length_mix up(n), down(n);
        for (std::size_t i = 0; i < n; ++i) up[i] = boundary - 1 + i % 3, down[i] = boundary + 1 - i % 3;
        mixes.push_back(up), mixes.push_back(down);
    }
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const test::bytes r = test::random_bytes(2 * n, seed);
        const std::size_t cap = seed <= 3 ? 300 : 5000;
        length_mix mix(n);
        for (std::size_t i = 0; i < n; ++i) mix[i] = (r[2 * i] * 256u + r[2 * i + 1]) % (cap + 1);
        mixes.push_back(mix);
    }
    return mixes;
}

// One allocation per message, each at its own misalignment and with its own content.
struct scattered_messages {
    std::vector<test::bytes> storage;
    std::vector<const std::uint8_t*> msgs;

    explicit scattered_messages(const length_mix& lens) {
        for (std::size_t i = 0; i < lens.size(); ++i)
            storage.push_back(test::random_bytes(lens[i] + 64, 77 * i + lens[i]));
        for (std::size_t i = 0; i < lens.size(); ++i) msgs.push_back(storage[i].data() + (i * 13 + lens[i]) % 64);
    }
};

// The mix with every length capped at `cap` (a guarded page holds at most a page).
length_mix capped(length_mix lens, std::size_t cap) {
    for (std::size_t& len : lens) len = std::min(len, cap);
    return lens;
}

// Checks digest i at out + i * stride against libb2 and the guard bytes after it.
void check_var_digests(const std::vector<std::uint8_t>& out, std::size_t stride, const std::uint8_t* const* msgs,
                       const length_mix& lens) {
    for (std::size_t i = 0; i < lens.size(); ++i) {
        CAPTURE(i);
        CAPTURE(lens[i]);
        REQUIRE(test::to_hex(out.data() + i * stride, digest_len) == reference_hex(msgs[i], lens[i]));
        for (std::size_t b = digest_len; b < stride; ++b) REQUIRE(out[i * stride + b] == 0xa5);
    }
}

void check_var_kernel(const var_kernel_case& k, const std::uint8_t* const* msgs, const length_mix& lens) {
    constexpr std::size_t stride = 48;
    std::vector<std::uint8_t> out(k.lanes * stride, 0xa5);
    k.fn(msgs, lens.data(), out.data(), stride);
    check_var_digests(out, stride, msgs, lens);
}

void check_gather_var(const std::uint8_t* const* msgs, const length_mix& lens) {
    constexpr std::size_t stride = 40;
    std::vector<std::uint8_t> out(lens.size() * stride + 8, 0xa5);
    blake2b256_gather_var(msgs, lens.data(), lens.size(), out.data(), stride);
    check_var_digests(out, stride, msgs, lens);
    for (std::size_t b = lens.size() * stride; b < out.size(); ++b) REQUIRE(out[b] == 0xa5);
}

}  // namespace

TEST_CASE("different-length kernels called directly: length mixes, misaligned lanes, guard pages") {
    if (var_kernels.empty()) MESSAGE("no BLAKE2b kernels on this CPU family: blake2b256_gather_var uses libb2");
    for (const var_kernel_case& k : var_kernels) {
        const std::string kernel_name = k.name;
        CAPTURE(kernel_name);
        if (highest_level() < k.level) {
            MESSAGE("skipped " << kernel_name << ": CPU lacks " << std::string(isa_name(k.level))
                               << " or RDELTA_FORCE_ISA excludes it");
            continue;
        }
        MESSAGE("kernel " << kernel_name << " checked directly");
        for (const length_mix& lens : length_mixes(k.lanes)) {
            const scattered_messages m(lens);
            check_var_kernel(k, m.msgs.data(), lens);
        }

        // Every lane ends exactly at its own PROT_NONE page, each at its own length.
        const guarded_pages pages(k.lanes);
        for (std::size_t i = 0; i < k.lanes; ++i) {
            const test::bytes fill = test::random_bytes(pages.page(), 900 + i);
            std::memcpy(pages.lane(i), fill.data(), fill.size());
        }
        std::vector<length_mix> mixes = length_mixes(k.lanes);
        length_mix whole_pages(k.lanes);
        for (std::size_t i = 0; i < k.lanes; ++i) whole_pages[i] = pages.page() - 128 * (i % 2) - i / 2;
        mixes.push_back(whole_pages);
        for (const length_mix& mix : mixes) {
            const length_mix lens = capped(mix, pages.page());
            std::vector<const std::uint8_t*> msgs(k.lanes);
            for (std::size_t i = 0; i < k.lanes; ++i) msgs[i] = pages.lane_end(i) - lens[i];
            check_var_kernel(k, msgs.data(), lens);
        }
    }
}

TEST_CASE("blake2b256_gather_var matches libb2 at every ISA level, length mix and count 0..17") {
    const test::forced_isa_reset reset;
    constexpr std::size_t max_count = 17;  // two 8-groups and a single; every padded group on the way
    const guarded_pages pages(max_count);
    for (std::size_t i = 0; i < max_count; ++i) {
        const test::bytes fill = test::random_bytes(pages.page(), 1700 + i);
        std::memcpy(pages.lane(i), fill.data(), fill.size());
    }
    for (isa level : test::available_levels()) {
        const std::string level_name = isa_name(level);  // a std::string, so doctest prints the text
        CAPTURE(level_name);
        force_isa(level);
        REQUIRE(active_isa() == level);
        MESSAGE("blake2b256_gather_var checked at level " << level_name);
        for (std::size_t count = 1; count <= max_count; ++count) {
            CAPTURE(count);
            for (const length_mix& lens : length_mixes(count)) {
                const scattered_messages m(lens);
                check_gather_var(m.msgs.data(), lens);
                // Each message ending at its own guard page.
                const length_mix on_page = capped(lens, pages.page());
                std::vector<const std::uint8_t*> guarded(count);
                for (std::size_t i = 0; i < count; ++i) guarded[i] = pages.lane_end(i) - on_page[i];
                check_gather_var(guarded.data(), on_page);
            }
        }
        // count 0 writes nothing.
        std::uint8_t untouched[digest_len];
        std::memset(untouched, 0x5a, sizeof untouched);
        blake2b256_gather_var(nullptr, nullptr, 0, untouched, digest_len);
        for (std::uint8_t b : untouched) REQUIRE(b == 0x5a);
    }
}

TEST_CASE("blake2b256_parts: 16 messages fed in pieces equal libb2 at every level") {
    // Pieces of whole blocks, then a last piece of any length: 0 only when it is
    // the whole (empty) message, and a full block is still the final one.
    const test::forced_isa_reset reset;
    const test::bytes data = test::random_bytes(16 * 3000, 91);
    for (isa level : test::available_levels()) {
        const std::string level_name = isa_name(level);
        CAPTURE(level_name);
        force_isa(level);
        for (std::size_t len : {0u, 1u, 128u, 129u, 256u, 1000u, 2999u, 3000u}) {
            for (std::size_t piece : {128u, 384u, 1024u}) {
                CAPTURE(len);
                CAPTURE(piece);
                const std::uint8_t* msgs[16];
                for (std::size_t i = 0; i < 16; ++i) msgs[i] = data.data() + i * 3000;
                blake2b256_parts parts;
                std::size_t done = 0;
                for (; len - done > piece; done += piece) {
                    const std::uint8_t* at[16];
                    for (std::size_t i = 0; i < 16; ++i) at[i] = msgs[i] + done;
                    parts.update(at, piece);
                }
                const std::uint8_t* rest[16];
                for (std::size_t i = 0; i < 16; ++i) rest[i] = msgs[i] + done;
                std::vector<std::uint8_t> out(16 * 40, 0xa5);
                parts.finish(rest, len - done, out.data(), 40);
                for (std::size_t i = 0; i < 16; ++i) {
                    CAPTURE(i);
                    REQUIRE(test::to_hex(out.data() + i * 40, digest_len) == reference_hex(msgs[i], len));
                    REQUIRE(out[i * 40 + digest_len] == 0xa5);
                }
            }
        }
    }
}
