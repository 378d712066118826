// manifest_scrub.cpp - comparing an image with its manifest (rdelta/manifest.hpp),
// and the manifest kept in memory.
//
// One thread reads and hashes: XXH3 hashes several GB/s, faster than the disks an
// image lives on, and holes are not read at all.
#include "core/aligned_buffer.hpp"
#include "core/exception_guard.hpp"
#include "extent_memo.hpp"
#include "manifest_format.hpp"
#include "manifest_refresh.hpp"
#include "output_hash.hpp"

#include <rdelta/in_place.hpp>
#include <rdelta/manifest.hpp>

#include <algorithm>
#include <cstring>

namespace rdelta {

namespace {

void note_mismatch(scrub_report& r, std::uint64_t from, std::uint64_t to) {
    ++r.mismatched_chunks;
    if (!r.mismatches.empty() && r.mismatches.back().second == from)
        r.mismatches.back().second = to;
    else if (r.mismatches.size() < 64)
        r.mismatches.emplace_back(from, to);
}

result<scrub_report> scrub(in_place_file& image, manifest_storage& manifest) {
    std::uint8_t bytes[detail::manifest_header_size];
    detail::manifest_header h;
    std::size_t have = 0;
    while (have < sizeof bytes) {
        auto r = manifest.read(have, {bytes + have, sizeof bytes - have});
        if (!r) return std::move(r).err();
        if (*r == 0) break;
        have += *r;
    }
    if (have == 0)
        return fail(errc::io_error,
                    manifest.name() + ": no manifest (an in-place patch with a checksummed delta writes one)");
    if (have < sizeof bytes || !detail::decode_manifest_header(bytes, h))
        return fail(errc::corrupt, manifest.name() + ": not a manifest of this version");
    auto known = detail::manifest_reader::open(manifest, image, h.chunk_size, h.length, false);
    if (!known) return fail(errc::io_error, manifest.name() + ": the manifest of another file, or damaged");
    scrub_report r;
    r.size = image.size();
    r.chunk_size = h.chunk_size;
    const auto [ctime_s, ctime_ns] = image.change_time();
    r.changed_since = h.length != image.size() || h.ctime_s != ctime_s || h.ctime_ns != ctime_ns;
    auto buf_store = detail::make_aligned_bytes(h.chunk_size);
    const std::span<std::uint8_t> buf(buf_store.get(), h.chunk_size);
    const std::uint64_t chunks = std::min(h.chunks(), detail::chunk_count(image.size(), h.chunk_size));
    detail::extent_memo holes(image);  // one lookup per extent: a sparse image's holes cost nothing
    for (std::uint64_t i = 0; i < chunks; ++i) {
        const std::uint64_t pos = i * h.chunk_size;
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(h.chunk_size, image.size() - pos));
        auto mine = detail::hash_image_chunk(image, holes, pos, len, buf, r.bytes_read);
        if (!mine) return std::move(mine).err();
        const auto theirs = known->entry(i);
        if (!theirs) return fail(errc::corrupt, manifest.name() + ": ends before its last chunk");
        if (*mine != *theirs || (len < h.chunk_size && h.length != image.size())) note_mismatch(r, pos, pos + len);
        ++r.chunks;
    }
    // A size that differs: everything past the shorter end differs too.
    const std::uint64_t common = chunks * h.chunk_size;
    if (std::max(h.length, image.size()) > common) note_mismatch(r, common, std::max(h.length, image.size()));
    return r;
}

}  // namespace

result<scrub_report> scrub_against_manifest(in_place_file& image, manifest_storage& manifest) {
    return detail::exceptions_as_errors("verify", [&] { return scrub(image, manifest); });
}

result<std::size_t> memory_manifest::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    if (pos >= bytes.size()) return std::size_t{0};
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), bytes.size() - pos));
    std::memcpy(out.data(), bytes.data() + pos, n);
    return n;
}

result<void> memory_manifest::stage() {
    staged.clear();
    has_staged = true;
    return {};
}

result<void> memory_manifest::write_staged(std::uint64_t pos, std::span<const std::uint8_t> b) {
    if (!has_staged) return fail(errc::param_error, "manifest: nothing staged");
    if (pos + b.size() > staged.size()) staged.resize(static_cast<std::size_t>(pos + b.size()));
    if (!b.empty()) std::memcpy(staged.data() + pos, b.data(), b.size());
    return {};
}

result<void> memory_manifest::publish() {
    if (!has_staged) return fail(errc::param_error, "manifest: nothing staged");
    bytes = std::move(staged);
    staged.clear();
    has_staged = false;
    return {};
}

void memory_manifest::discard_staged() {
    staged.clear();
    has_staged = false;
}

}  // namespace rdelta
