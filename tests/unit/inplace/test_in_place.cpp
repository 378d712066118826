// test_in_place.cpp - in-place patching: results equal an ordinary patch, unsafe
// deltas are refused before anything is written, same-offset copies write nothing.
#include "in_place_delta.hpp"
#include "paged_file.hpp"
#include "test_helpers.hpp"

#include "format/checksum_trailer.hpp"
#include "inplace/write_batch.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace rdelta;
using test::paged_file;

namespace {

test::bytes delta_of(const test::bytes& basis, const test::bytes& next, std::uint32_t block, bool checksum = false) {
    auto sig_bytes = make_signature(basis, {0x72730147, block, 32});
    REQUIRE(sig_bytes.ok());
    auto sig = load_signature(*sig_bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index().ok());
    auto d = make_delta(*sig, next, 0, delta_options{{1}, checksum});
    REQUIRE(d.ok());
    return *d;
}

}  // namespace

TEST_CASE("in place: overwrites, deletions, appends and truncation give the new file") {
    const auto basis = test::random_bytes(100000, 51);
    std::vector<test::bytes> news;
    auto overwrite = basis;
    std::fill(overwrite.begin() + 5000, overwrite.begin() + 9000, 7);
    news.push_back(overwrite);
    auto deleted = basis;
    deleted.erase(deleted.begin() + 1000, deleted.begin() + 1777);  // copies move backwards: safe
    news.push_back(deleted);
    auto appended = basis;
    appended.insert(appended.end(), 5000, 9);
    news.push_back(appended);
    news.push_back(test::bytes(basis.begin(), basis.begin() + 40000));
    for (const auto& next : news) {
        for (bool checksum : {false, true}) {
            paged_file file(basis);
            auto done = patch_in_place(delta_of(basis, next, 512, checksum), file);
            REQUIRE(done.ok());
            CHECK(file.data() == next);
            CHECK(done->checksum_verified == checksum);
        }
    }
}

TEST_CASE("in place: unchanged blocks are not rewritten") {
    const auto basis = test::random_bytes(1 << 20, 52);
    auto next = basis;
    next[300000] ^= 1;
    paged_file file(basis);
    REQUIRE(patch_in_place(delta_of(basis, next, 4096), file).ok());
    CHECK(file.data() == next);
    CHECK(file.count.bytes_written <= 2 * 4096);
}

TEST_CASE("in place: a delta that reads overwritten data is refused and nothing is written") {
    const auto basis = test::random_bytes(8192, 53);
    // Swapped halves: the second COPY reads what the first one overwrote.
    test::bytes swapped(basis.begin() + 4096, basis.end());
    swapped.insert(swapped.end(), basis.begin(), basis.begin() + 4096);
    // Bytes inserted at the front: every copy moves forward over its own source.
    test::bytes shifted = basis;
    shifted.insert(shifted.begin(), {1, 2, 3});
    for (const auto* next : {&swapped, &shifted}) {
        paged_file file(basis);
        auto done = patch_in_place(delta_of(basis, *next, 1024), file);
        REQUIRE(!done.ok());
        CHECK(done.err().code == errc::param_error);
        CHECK(done.err().message.find("cannot be applied in place") != std::string::npos);
        CHECK(file.data() == basis);
        CHECK(file.count.bytes_written == 0);
    }
}

TEST_CASE("in place: a wrong basis fails the checksum before writing") {
    const auto basis = test::random_bytes(50000, 54);
    auto next = basis;
    next[10] ^= 1;
    auto d = delta_of(basis, next, 1024, true);
    auto other = basis;
    other[40000] ^= 1;
    paged_file file(other);
    auto done = patch_in_place(d, file);
    REQUIRE(!done.ok());
    CHECK(done.err().code == errc::corrupt);
    CHECK(file.count.bytes_written == 0);
}

TEST_CASE("in place: malformed deltas give the patch error codes, untouched file") {
    const auto basis = test::random_bytes(100, 55);
    const struct {
        const char* hex;
        errc code;
    } cases[] = {{"72730237 00", errc::bad_magic},
                 {"72730236 45 00", errc::input_ended},
                 {"72730236 55", errc::corrupt},
                 {"72730236 03 4142", errc::input_ended},
                 {"72730236 45 60 10 00", errc::input_ended}};
    for (const auto& c : cases) {
        CAPTURE(c.hex);
        paged_file file(basis);
        auto done = patch_in_place(test::from_hex(c.hex), file);
        REQUIRE(!done.ok());
        CHECK(done.err().code == c.code);
        CHECK(file.count.bytes_written == 0);
    }
}

TEST_CASE("in-place-safe deltas always apply in place, whatever the edits and threads") {
    const auto unit = test::random_bytes(3000, 56, 8);
    test::bytes basis;
    while (basis.size() < (3u << 20)) basis.insert(basis.end(), unit.begin(), unit.end());
    auto next = basis;
    next.insert(next.begin() + 10, {1, 2, 3, 4, 5});             // shifts data forward
    next.erase(next.begin() + 2000000, next.begin() + 2000100);  // and back
    std::fill(next.begin() + 1000000, next.begin() + 1004096, std::uint8_t{0});
    test::bytes swapped(basis.begin() + 1500000, basis.end());  // moved blocks
    swapped.insert(swapped.end(), basis.begin(), basis.begin() + 1500000);
    for (const auto* target : {&next, &swapped}) {
        auto sig_bytes = make_signature(basis, {0x72730147, 1024, 8});
        REQUIRE(sig_bytes.ok());
        auto sig = load_signature(*sig_bytes);
        REQUIRE(sig.ok());
        REQUIRE(sig->build_index(true).ok());
        delta_options options{{1}};
        options.in_place_safe = true;
        auto one = make_delta(*sig, *target, 0, options);
        REQUIRE(one.ok());
        options.threads = 2;
        auto two = make_delta(*sig, *target, 0, options);
        REQUIRE(two.ok());
        CHECK(*one == *two);
        paged_file file(basis);
        auto done = patch_in_place(*one, file);
        REQUIRE(done.ok());
        CHECK(file.data() == *target);
        // And it is an ordinary delta too.
        auto rebuilt = apply_patch(basis, *one);
        REQUIRE(rebuilt.ok());
        CHECK(*rebuilt == *target);
    }
}

TEST_CASE("in place: zeros copied or written onto holes are not written, holes are not read") {
    // Bytes inserted at the front: an in-place-safe delta can only use later blocks,
    // so the data becomes literals and the zero run is copied from other zero blocks.
    test::bytes basis = test::random_bytes(64 << 10, 81);
    basis.resize(basis.size() + (1 << 20), 0);
    const auto tail = test::random_bytes(64 << 10, 82);
    basis.insert(basis.end(), tail.begin(), tail.end());
    test::bytes next = basis;
    next.insert(next.begin(), {'a', 'b', 'c'});
    for (bool checksum : {false, true}) {
        const auto delta = test::in_place_delta(basis, next, 4096, checksum);
        paged_file file(basis);
        file.make_hole(64 << 10, (64 << 10) + (1 << 20));
        auto done = patch_in_place(delta, file, {});
        REQUIRE(done.ok());
        CHECK(file.data() == next);
        CHECK(done->checksum_verified == checksum);
        CHECK(file.count.bytes_written < (200u << 10));  // the data around the zeros, not the zeros
        CHECK(file.count.hole_pages_read == 0);
        CHECK(file.is_hole(256 << 10, 512 << 10));
    }
}

TEST_CASE("in place: zeros written over a range that is partly hole leave the hole a hole") {
    // 32 KiB of zeros over [4, 36) KiB, where [8, 16) KiB is a hole: only the stored
    // pages are written, so a patch applied again to an image it made keeps its layout.
    test::bytes content = test::random_bytes(128 << 10, 83);
    std::fill(content.begin() + (8 << 10), content.begin() + (16 << 10), 0);
    paged_file file(content);
    file.make_hole(8 << 10, 16 << 10);
    detail::write_batch batch(file, nullptr, std::uint64_t{1} << 30);
    const test::bytes zeros(32 << 10, 0);
    REQUIRE(batch.literal(4 << 10, zeros).ok());
    REQUIRE(batch.flush().ok());
    CHECK(
        std::all_of(file.data().begin() + (4 << 10), file.data().begin() + (36 << 10), [](auto b) { return b == 0; }));
    CHECK(file.is_hole(8 << 10, 8 << 10));
    CHECK_FALSE(file.is_hole(4 << 10, 4 << 10));
    CHECK_FALSE(file.is_hole(16 << 10, 20 << 10));
    CHECK(file.count.bytes_written == (24u << 10));
}

TEST_CASE("in place: runs of short COPYs that continue one another, with a trailer, give the new file") {
    // Two-byte COPYs from consecutive positions ahead of the output, broken by
    // literals and by jumps: pass 2 hashes each run as one read.
    const auto basis = test::random_bytes(200000, 61);
    test::bytes delta = {0x72, 0x73, 0x02, 0x36}, next;
    std::uint32_t src = 4096;
    for (int i = 0; i < 20000; ++i) {
        if (i % 997 == 0) {  // a literal, then the run goes on from a jump
            delta.insert(delta.end(), {0x41, 3, 'a', 'b', 'c'});
            next.insert(next.end(), {'a', 'b', 'c'});
            src += 64;
        }
        delta.push_back(0x4d);  // COPY, 4-byte position, 1-byte length
        for (int shift = 24; shift >= 0; shift -= 8) delta.push_back(static_cast<std::uint8_t>(src >> shift));
        delta.push_back(2);
        next.insert(next.end(), basis.begin() + src, basis.begin() + src + 2);
        src += 2;
    }
    delta.push_back(0);
    detail::stream_checksum sum;
    sum.update(next.data(), next.size());
    std::uint8_t trailer[detail::max_trailer_size];
    delta.insert(delta.end(), trailer, trailer + sum.write_trailer(trailer));
    paged_file file(basis);
    auto done = patch_in_place(delta, file);
    REQUIRE(done);
    CHECK(done->checksum_verified);
    CHECK(done->copy_cmds == 20000);
    CHECK(file.data() == next);
    paged_file wrong(test::random_bytes(200000, 62));  // the hashed runs are what is compared
    auto refused = patch_in_place(delta, wrong);
    REQUIRE(!refused);
    CHECK(refused.err().code == errc::corrupt);
}
