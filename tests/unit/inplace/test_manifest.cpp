// test_manifest.cpp - chunk hashes and their root, the two trailer forms, and the
// in-place patch that verifies only what it writes against the image's manifest.
#include "in_place_delta.hpp"
#include "paged_file.hpp"
#include "test_helpers.hpp"

#include "format/checksum_trailer.hpp"
#include "format/chunk_hasher.hpp"
#include "inplace/manifest_format.hpp"

#include <rdelta/basis_root.hpp>
#include <rdelta/delta.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/manifest.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace rdelta;
using test::paged_file;

namespace {

// An in-place delta over 2048-byte blocks with its checksum trailer.
test::bytes checksummed_delta(const test::bytes& basis, const test::bytes& next) {
    return test::in_place_delta(basis, next, 2048, true);
}

// 4 MiB of data with a 1 MiB run of zeros, and the same with three small edits.
test::bytes image_bytes() {
    auto b = test::random_bytes(4 << 20, 91);
    std::fill(b.begin() + (1 << 20), b.begin() + (2 << 20), 0);
    return b;
}
test::bytes edited(test::bytes b) {
    for (std::size_t at : {100000u, 2500000u, 4000000u})
        for (std::size_t i = 0; i < 3000; ++i) b[at + i] ^= 0x5a;
    return b;
}

}  // namespace

TEST_CASE("manifest: chunk root does not depend on how the bytes arrive") {
    const auto data = test::random_bytes(300000, 92);
    detail::chunk_hasher whole;
    whole.update(data.data(), data.size());
    const auto expected = whole.root();
    CHECK(whole.chunks() == detail::chunk_count(data.size(), detail::default_chunk_size));
    detail::chunk_hasher pieces;
    for (std::size_t at = 0, step = 1; at < data.size(); at += step, step = step * 3 % 70001 + 1)
        pieces.update(data.data() + at, std::min(step, data.size() - at));
    CHECK(pieces.root() == expected);
    // Known chunks give the same root as their bytes.
    detail::chunk_hasher known;
    known.add_known(detail::hash_bytes(data.data(), 65536), 65536);
    known.update(data.data() + 65536, data.size() - 65536);
    CHECK(known.root() == expected);
    // Zeros, fed as zeros or as bytes; and the length is part of the root.
    const test::bytes zeros(200000, 0);
    detail::chunk_hasher a, b, shorter;
    a.update(zeros.data(), zeros.size());
    b.update_zeros(7), b.update_zeros(zeros.size() - 7);
    shorter.update(zeros.data(), zeros.size() - 1);
    const auto ra = a.root();
    CHECK(b.root() == ra);
    CHECK(shorter.root() != ra);
    CHECK(detail::zero_chunk_hash(65536) == detail::hash_bytes(zeros.data(), 65536));
}

TEST_CASE("manifest: both trailer forms are read; a whole-file trailer still verifies") {
    const auto basis = test::random_bytes(200000, 93);
    auto next = basis;
    next[1234] ^= 1;
    const auto chunked = checksummed_delta(basis, next);
    REQUIRE(detail::is_chunk_trailer(chunked.data() + chunked.size() - 32, 32));
    // The same commands with the whole-file trailer of earlier versions.
    test::bytes whole(chunked.begin(), chunked.end() - 32);
    detail::stream_checksum sum(detail::stream_checksum::whole);
    sum.update(next.data(), next.size());
    std::uint8_t t[detail::max_trailer_size];
    REQUIRE(sum.write_trailer(t) == detail::whole_trailer_size);
    whole.insert(whole.end(), t, t + detail::whole_trailer_size);
    for (const test::bytes* d : {&chunked, static_cast<const test::bytes*>(&whole)}) {
        auto out = apply_patch(basis, *d);
        REQUIRE(out.ok());
        CHECK(*out == next);
        auto wrong = basis;
        wrong[150000] ^= 1;
        CHECK(apply_patch(wrong, *d).err().code == errc::corrupt);
        paged_file file(basis);
        memory_manifest m;
        in_place_options o;
        o.manifest = &m;
        auto done = patch_in_place(test::opener_of(*d), file, o);
        REQUIRE_MESSAGE(done.ok(), (done.ok() ? "" : done.err().message));
        CHECK(file.data() == next);
        CHECK(done->manifest_published == (d == &chunked));  // only a chunked trailer makes one
    }
}

TEST_CASE("manifest: an in-place patch reads only what it changes once the image has a manifest") {
    const auto v1 = image_bytes(), v2 = edited(v1);
    auto v3 = v2;
    std::fill(v3.begin() + 3000000, v3.begin() + 3001000, 0x77);
    paged_file file(v1);
    memory_manifest m;
    in_place_options o;
    o.manifest = &m;
    // No manifest yet: the whole file is read, and the manifest of v2 published.
    const auto d12 = checksummed_delta(v1, v2);
    auto first = patch_in_place(test::opener_of(d12), file, o);
    REQUIRE(first.ok());
    CHECK(file.data() == v2);
    CHECK_FALSE(first->manifest_used);
    CHECK(first->manifest_published);
    CHECK(first->verify_bytes_read >= (3u << 20));
    REQUIRE(m.bytes.size() == detail::manifest_header::entry_at(64));
    // With it: the chunks around the one edit, before and after writing.
    const auto d23 = checksummed_delta(v2, v3);
    file.count.bytes_read = 0;
    auto second = patch_in_place(test::opener_of(d23), file, o);
    REQUIRE(second.ok());
    CHECK(file.data() == v3);
    CHECK(second->manifest_used);
    CHECK(second->verify_bytes_read <= 4 * 65536);
    CHECK(file.count.bytes_read < (1u << 20));  // the copies and the checks together

    SUBCASE("the manifest of another state is not used") {
        file.changes += 1;  // changed by someone else since
        auto d33 = checksummed_delta(v3, v2);
        auto third = patch_in_place(test::opener_of(d33), file, o);
        REQUIRE(third.ok());
        CHECK(file.data() == v2);
        CHECK_FALSE(third->manifest_used);
    }
    SUBCASE("a manifest whose entries are wrong costs a whole read, not a refusal") {
        m.bytes[detail::manifest_header::entry_at(10)] ^= 1;
        auto d32 = checksummed_delta(v3, v2);
        auto third = patch_in_place(test::opener_of(d32), file, o);
        REQUIRE(third.ok());
        CHECK(file.data() == v2);
        CHECK_FALSE(third->manifest_used);
        CHECK(third->verify_bytes_read >= (3u << 20));
    }
    SUBCASE("a wrong basis is still refused, and nothing written") {
        auto wrong = edited(v3);  // a delta made against another file
        auto dw = checksummed_delta(wrong, v1);
        const auto before = file.data();
        auto third = patch_in_place(test::opener_of(dw), file, o);
        REQUIRE_FALSE(third.ok());
        CHECK(third.err().code == errc::corrupt);
        CHECK(file.data() == before);
    }
    SUBCASE("a scrub passes bytes that match though the change time moved") {
        file.changes += 1;  // a metadata change, or a patch rolled back
        auto moved = scrub_against_manifest(file, m);
        REQUIRE(moved.ok());
        CHECK(moved->changed_since);
        CHECK(moved->mismatched_chunks == 0);
        CHECK(moved->clean());
    }
    SUBCASE("a scrub finds a chunk that changed under the manifest") {
        auto clean = scrub_against_manifest(file, m);
        REQUIRE(clean.ok());
        CHECK(clean->clean());
        CHECK(clean->chunks == 64);
        CHECK(clean->bytes_read == v3.size());
        file.rot(200000);  // bit rot: the change time does not move
        auto rotten = scrub_against_manifest(file, m);
        REQUIRE(rotten.ok());
        CHECK_FALSE(rotten->clean());
        CHECK_FALSE(rotten->changed_since);
        REQUIRE(rotten->mismatches.size() == 1);
        CHECK(rotten->mismatches[0] == std::pair<std::uint64_t, std::uint64_t>{196608, 262144});
    }
}

TEST_CASE("manifest: header round trip and refusals") {
    detail::manifest_header h;
    h.length = 123456789, h.dev = 5, h.ino = 6, h.ctime_s = 7, h.ctime_ns = 8;
    h.root[3] = 9;
    std::uint8_t bytes[detail::manifest_header_size];
    detail::encode_manifest_header(h, bytes);
    detail::manifest_header back;
    REQUIRE(detail::decode_manifest_header(bytes, back));
    CHECK(back.length == h.length);
    CHECK(back.chunks() == detail::chunk_count(123456789, 65536));
    CHECK(back.root == h.root);
    bytes[11] = 3;  // chunk size 65539: not a power of two
    CHECK_FALSE(detail::decode_manifest_header(bytes, back));
    bytes[11] = 0, bytes[8] = 0x40;  // 1 GiB chunks: valid in principle, never written, not buffered
    CHECK_FALSE(detail::decode_manifest_header(bytes, back));
    paged_file file(test::random_bytes(1000, 94));
    memory_manifest none;
    CHECK(scrub_against_manifest(file, none).err().code == errc::io_error);
}

TEST_CASE("manifest: a delta naming its basis is checked against the manifest before anything is written") {
    const auto v0 = image_bytes(), v1 = edited(v0);
    auto v2 = v1;
    for (std::size_t i = 0; i < 5000; ++i) v2[3000000 + i] ^= 0x33;
    // Night 1 gives the image a manifest; its root is night 1's output root.
    paged_file file(v0);
    memory_manifest m;
    in_place_options o;
    o.manifest = &m;
    const auto d1 = checksummed_delta(v0, v1);
    REQUIRE(patch_in_place(test::opener_of(d1), file, o).ok());
    const auto root1 = detail::trailer_root(d1.data() + d1.size() - detail::chunk_trailer_size);
    // Night 2 names it as its basis: a 48-byte trailer that rdiff's patch (and ours out
    // of place) ignores beyond the checksum.
    auto sig = load_signature(*make_signature(v1, {0x72730147, 2048, 32}));
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index(true).ok());
    delta_options named{{1}, true, true};
    named.basis_root = root1;
    const auto d2 = *make_delta(*sig, v2, 0, named);
    const std::uint8_t* t2 = d2.data() + d2.size() - detail::basis_trailer_size;
    REQUIRE(detail::trailer_size_at(t2, detail::basis_trailer_size) == detail::basis_trailer_size);
    CHECK(detail::trailer_basis_root(t2, detail::basis_trailer_size) == root1);
    CHECK(delta_output_root(d2) == detail::trailer_root(t2));
    CHECK(*apply_patch(v1, d2) == v2);
    auto done = patch_in_place(test::opener_of(d2), file, o);
    REQUIRE(done.ok());
    CHECK(done->basis == in_place_stats::basis_check::matched);
    CHECK(file.data() == v2);
    // The same night again: up to date, nothing read or written.
    const auto ctime = file.changes;
    file.count.bytes_read = 0;
    auto again = patch_in_place(test::opener_of(d2), file, o);
    REQUIRE(again.ok());
    CHECK(again->up_to_date);
    CHECK(file.count.bytes_read == 0);
    CHECK(file.changes == ctime);
    // A delta naming another basis: refused, corrupt, nothing written.
    named.basis_root = detail::chunk_hash{};
    const auto stale = *make_delta(*sig, v2, 0, named);
    paged_file other(v1);
    memory_manifest m_other;
    o.manifest = &m_other;
    auto fresh =
        patch_in_place(test::opener_of(checksummed_delta(v1, v1)), other, o);  // an identity night gives it one
    REQUIRE(fresh.ok());
    const auto before = other.changes;
    auto refused = patch_in_place(test::opener_of(stale), other, o);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.err().code == errc::corrupt);
    CHECK(refused.err().message.find("another version") != std::string::npos);
    CHECK(other.changes == before);
    CHECK(other.data() == v1);
    // Without a manifest the basis is applied unchecked, and said so.
    paged_file bare(v1);
    in_place_options no_manifest;
    auto unchecked = patch_in_place(test::opener_of(stale), bare, no_manifest);
    REQUIRE(unchecked.ok());
    CHECK(unchecked->basis == in_place_stats::basis_check::no_manifest);
    CHECK(bare.data() == v2);
}

TEST_CASE("manifest: basis roots as hex") {
    const chunk_root r{0x00, 0x01, 0xab, 0xff, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xfe};
    CHECK(root_to_hex(r) == "0001abff0405060708090a0b0c0d0efe");
    CHECK(root_from_hex("0001ABFF0405060708090a0b0c0d0efe") == r);
    CHECK_FALSE(root_from_hex("0001abff0405060708090a0b0c0d0ef"));
    CHECK_FALSE(root_from_hex("0001abff0405060708090a0b0c0d0efg"));
    CHECK_FALSE(delta_output_root(test::bytes(10, 0)));
}
