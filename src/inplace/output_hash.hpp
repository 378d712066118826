// output_hash.hpp - hashing what an in-place patch makes, chunk by chunk, against a
// delta's chunked checksum trailer, reading only what the delta changes when the
// image's manifest gives the rest.
#pragma once

#include "format/chunk_hasher.hpp"
#include "manifest_format.hpp"

#include <rdelta/in_place.hpp>
#include <rdelta/manifest.hpp>

#include <functional>
#include <optional>
#include <vector>

namespace rdelta::detail {

/// The manifest of the image's current state, read entry by entry in order.
class manifest_reader {
public:
    /// The manifest when it describes `file` as it is now (same device, inode, size
    /// and change time, `chunk_size`); nullopt when absent, damaged or stale. After
    /// the patch's own writes, `size` is the old size and the change time is not
    /// compared (the manifest was found to describe the file before them).
    static std::optional<manifest_reader> open(manifest_storage& storage, in_place_file& file, std::uint32_t chunk_size,
                                               std::uint64_t size, bool compare_change_time = true);
    /// Chunk `i`'s hash; nullopt when the manifest cannot give it.
    std::optional<chunk_hash> entry(std::uint64_t i);
    const manifest_header& header() const noexcept { return header_; }

private:
    manifest_reader(manifest_storage& s, const manifest_header& h) : storage_(&s), header_(h) {}
    manifest_storage* storage_;
    manifest_header header_;
    std::vector<std::uint8_t> block_;  // entries [first_, first_ + block_.size() / 16)
    std::uint64_t first_ = 0;
};

/// Writes a new manifest's chunk hashes as they come; a failure only loses it.
class manifest_stager {
public:
    explicit manifest_stager(manifest_storage* storage);
    void add(std::uint64_t index, const chunk_hash& h);
    /// Write the header; false (and the staged manifest dropped) after any failure.
    bool finish(const manifest_header& header);
    void discard();
    bool active() const noexcept { return storage_ != nullptr; }

private:
    void flush();
    manifest_storage* storage_;
    std::vector<std::uint8_t> pending_;
    std::uint64_t pending_first_ = 0;
};

struct output_hash_options {
    /// Hashes of the chunks a same-offset COPY leaves whole; nullptr reads them.
    manifest_reader* known = nullptr;
    manifest_stager* stager = nullptr;  ///< told every chunk hash
};

struct output_hash_result {
    bool matches = false;          ///< the output's root and length are the trailer's
    bool used_known = false;       ///< some chunks came from the manifest
    std::uint64_t bytes_read = 0;  ///< image bytes read (holes are not)
    /// One bit per chunk of the output: set when the chunk was hashed from its
    /// bytes, clear when the manifest gave it (the delta leaves it unchanged).
    std::vector<std::uint64_t> hashed;
};

/// Hash the output `delta` makes of `file` (basis `old_size` bytes, output `new_size`
/// bytes: both checked by pass 1) and compare it with the chunked `trailer`.
result<output_hash_result> hash_output(byte_source& delta, in_place_file& file, std::span<const std::uint8_t> trailer,
                                       std::uint64_t old_size, std::uint64_t new_size,
                                       const output_hash_options& options, const patch_options& patch);

/// Pass 2 of an in-place patch with a chunked trailer: the would-be output's root,
/// with the manifest's hashes of the chunks the delta keeps when it describes the
/// file (a manifest that turns out not to is set aside and everything read), each
/// chunk hash told to `stager`. corrupt when the output would not match.
result<output_hash_result> verify_before_writing(const delta_opener& open, in_place_file& file,
                                                 std::span<const std::uint8_t> trailer, std::uint64_t new_size,
                                                 manifest_storage* manifest, manifest_stager& stager,
                                                 const patch_options& patch);

/// After the writes: the image's root, rereading the chunks `before` hashed from
/// their bytes and taking the others from `manifest` (without one, rereading
/// everything); corrupt on a mismatch. The image bytes read.
result<std::uint64_t> verify_after_writing(in_place_file& file, std::span<const std::uint8_t> trailer,
                                           std::uint64_t old_size, std::uint64_t new_size, manifest_storage* manifest,
                                           const output_hash_result& before, const patch_options& patch);

}  // namespace rdelta::detail
