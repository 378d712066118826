// rdelta/manifest.hpp - the chunk manifest an image keeps of its last verified
// state, so that an in-place patch verifies only what it writes, and a scrub
// (`rdelta verify IMAGE`) finds what changed without it.
//
// The manifest (format: docs/format.md, "Manifest") holds the hash of every 64 KiB
// chunk of the image and the root over them, and names the image's device, inode,
// size and change time (ctime) when it was written. An in-place patch whose delta
// carries a chunked checksum trailer reads the chunks the delta leaves alone from
// the manifest instead of the image, hashes only the chunks it writes, compares the
// root with the trailer before writing and again after, and publishes the new
// manifest once the image is committed. A manifest whose image has changed since
// (another ctime) is not used: the patch then reads the whole image, as without one.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rdelta {

class in_place_file;
class in_place_fd;

/// Where a manifest lives: a file beside the image, or memory (tests).
class RDELTA_API manifest_storage {
public:
    virtual ~manifest_storage() = default;
    /// Read up to out.size() bytes of the current manifest at `pos`; the count, 0 at
    /// its end or when there is none.
    virtual result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) = 0;
    /// Start a new manifest, invisible until publish().
    virtual result<void> stage() = 0;
    virtual result<void> write_staged(std::uint64_t pos, std::span<const std::uint8_t> bytes) = 0;
    /// Make the staged manifest the current one, durably (it replaces the old one).
    virtual result<void> publish() = 0;
    /// Drop the staged manifest, if any.
    virtual void discard_staged() = 0;
    /// For messages.
    virtual const std::string& name() const = 0;
};

/// The manifest of an image already open: ".IMAGE.rdelta-manifest" in the folder
/// in_place_fd::open() found it in. A file under that name is read only when it is
/// a regular file with one link, owned by the caller, the image's owner or root,
/// writable by its owner alone (otherwise it is ignored, as if absent, and replaced
/// on publish). A new one is written to an unnamed (or uniquely named) file in the
/// same folder, synced, and renamed over the old one.
RDELTA_API result<std::unique_ptr<manifest_storage>> open_manifest_file(const in_place_fd& image);

/// A manifest kept in memory, for tests and fuzzing.
class RDELTA_API memory_manifest final : public manifest_storage {
public:
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    result<void> stage() override;
    result<void> write_staged(std::uint64_t pos, std::span<const std::uint8_t> bytes) override;
    result<void> publish() override;
    void discard_staged() override;
    const std::string& name() const override { return name_; }

    std::vector<std::uint8_t> bytes, staged;
    bool has_staged = false;

private:
    std::string name_ = "manifest";
};

/// What a scrub of an image against its manifest found.
struct RDELTA_API scrub_report {
    std::uint64_t size = 0;  ///< the image's size
    std::uint64_t chunk_size = 0;
    std::uint64_t chunks = 0;      ///< chunks compared
    std::uint64_t bytes_read = 0;  ///< bytes read (holes are not)
    /// The image's change time or size moved after the manifest was written: a write
    /// by other means, a metadata change, or a rolled-back patch. Only damage when
    /// chunks differ too.
    bool changed_since = false;
    /// Byte ranges [first, second) whose chunks differ from the manifest, merged; at
    /// most 64 are kept (mismatched_chunks counts them all).
    std::vector<std::pair<std::uint64_t, std::uint64_t>> mismatches;
    std::uint64_t mismatched_chunks = 0;
    /// Every chunk matches the manifest: the data is what rdelta wrote.
    bool clean() const noexcept { return mismatched_chunks == 0; }
};

/// Read the whole image and compare every chunk with its manifest (bit rot, or a
/// change made without rdelta). io_error when there is no usable manifest (none,
/// damaged, or of another file); otherwise the report says what differs.
RDELTA_API result<scrub_report> scrub_against_manifest(in_place_file& image, manifest_storage& manifest);

}  // namespace rdelta
