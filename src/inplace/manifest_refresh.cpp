// manifest_refresh.cpp - bringing an image's manifest up to date after a rollback
// or a recovered commit, or emptying it (manifest_refresh.hpp).
#include "manifest_refresh.hpp"

#include "core/aligned_buffer.hpp"
#include "manifest_format.hpp"
#include "output_hash.hpp"

#include <algorithm>
#include <new>
#include <optional>

namespace rdelta::detail {

result<chunk_hash> hash_image_chunk(in_place_file& image, extent_memo& holes, std::uint64_t pos, std::size_t len,
                                    std::span<std::uint8_t> buf, std::uint64_t& bytes_read) {
    if (holes.is_hole(pos, len)) return zero_chunk_hash(len);
    for (std::size_t done = 0; done < len;) {
        auto got = image.read(pos + done, buf.subspan(done, len - done));
        if (!got) return std::move(got).err();
        if (*got == 0) return fail(errc::input_ended, "the image ended while reading it");
        done += *got;
        bytes_read += *got;
    }
    return hash_bytes(buf.data(), len);
}

bool manifest_is_current(manifest_storage& storage, in_place_file& file) {
    return manifest_reader::open(storage, file, default_chunk_size, file.size()).has_value();
}

namespace {

// The header of `file`'s manifest as it is now; false when the file cannot be named.
bool describe_now(in_place_file& file, manifest_header& h) {
    h.length = file.size();
    std::tie(h.dev, h.ino) = file.identity();
    std::tie(h.ctime_s, h.ctime_ns) = file.change_time();
    return h.ino != 0 && (h.ctime_s != 0 || h.ctime_ns != 0);
}

bool publish(manifest_stager& stager, manifest_storage& storage, const manifest_header& h) {
    return stager.finish(h) && static_cast<bool>(storage.publish());
}

// Whether chunk [pos, end) meets a range of `ranges` (sorted, merged) at or after
// `*next`, which moves past the ranges that end before it.
bool touched(const byte_ranges& ranges, std::size_t& next, std::uint64_t pos, std::uint64_t end) {
    while (next < ranges.size() && ranges[next].second <= pos) ++next;
    return next < ranges.size() && ranges[next].first < end;
}

// Sorted, merged, each cut to [0, size).
byte_ranges merged_within(byte_ranges ranges, std::uint64_t size) {
    std::sort(ranges.begin(), ranges.end());
    byte_ranges out;
    for (auto [from, to] : ranges) {
        to = std::min(to, size);
        if (from >= to) continue;
        if (!out.empty() && from <= out.back().second)
            out.back().second = std::max(out.back().second, to);
        else
            out.emplace_back(from, to);
    }
    return out;
}

bool rebase(manifest_storage& storage, in_place_file& file, std::uint64_t old_size, byte_ranges overwritten) {
    auto old = manifest_reader::open(storage, file, default_chunk_size, old_size, false);
    if (!old) return false;
    manifest_header h = old->header();
    if (!describe_now(file, h)) return false;
    const std::uint64_t c = h.chunk_size, new_size = h.length;
    // What changed: the regions overwritten, everything past the old end, and a
    // last chunk that got shorter.
    if (new_size > old_size) overwritten.emplace_back(old_size, new_size);
    if (new_size < old_size && new_size % c != 0) overwritten.emplace_back(new_size - new_size % c, new_size);
    const byte_ranges changed = merged_within(std::move(overwritten), new_size);
    manifest_stager stager(&storage);
    if (!stager.active()) return false;
    chunk_hasher root(h.chunk_size);
    auto buf_store = make_aligned_bytes(c);
    const std::span<std::uint8_t> buf(buf_store.get(), c);
    extent_memo holes(file);
    std::uint64_t bytes_read = 0;
    std::size_t next = 0;
    for (std::uint64_t i = 0; i < chunk_count(new_size, h.chunk_size); ++i) {
        const std::uint64_t pos = i * c;
        const auto len = static_cast<std::size_t>(std::min(c, new_size - pos));
        std::optional<chunk_hash> hash;
        if (touched(changed, next, pos, pos + len)) {
            auto mine = hash_image_chunk(file, holes, pos, len, buf, bytes_read);
            if (mine) hash = *mine;
        } else {
            hash = old->entry(i);
        }
        if (!hash) {
            stager.discard();
            return false;
        }
        root.add_known(*hash, len);
        stager.add(i, *hash);
    }
    h.root = root.root();
    return publish(stager, storage, h);
}

bool restamp(manifest_storage& storage, in_place_file& file) {
    auto old = manifest_reader::open(storage, file, default_chunk_size, file.size(), false);
    if (!old) return false;
    manifest_header h = old->header();
    if (!describe_now(file, h)) return false;
    manifest_stager stager(&storage);
    if (!stager.active()) return false;
    for (std::uint64_t i = 0; i < h.chunks(); ++i) {
        const auto hash = old->entry(i);
        if (!hash) {
            stager.discard();
            return false;
        }
        stager.add(i, *hash);
    }
    return publish(stager, storage, h);
}

}  // namespace

bool restamp_manifest(manifest_storage& storage, in_place_file& file) {
    try {
        return restamp(storage, file);
    } catch (const std::bad_alloc&) {
        return false;
    }
}

bool rebase_manifest(manifest_storage& storage, in_place_file& file, std::uint64_t old_size, byte_ranges overwritten) {
    try {
        return rebase(storage, file, old_size, std::move(overwritten));
    } catch (const std::bad_alloc&) {
        return false;
    }
}

void clear_manifest(manifest_storage& storage) {
    std::uint8_t probe[1];
    auto has = storage.read(0, probe);
    if (has && *has == 0) return;  // none
    if (storage.stage()) (void)storage.publish();
}

}  // namespace rdelta::detail
