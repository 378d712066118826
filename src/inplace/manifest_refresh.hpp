// manifest_refresh.hpp - keeping an image's manifest true after a patch that did not
// publish a new one: rolled back, finished by recovery after its commit, or made
// from a delta without a chunked trailer.
//
// A manifest left as it was would name a change time the image no longer has, and
// a scrub would report the patch's own writes as changes made by other means. The
// undo journal says whether the manifest described the image when the patch began
// (journal_manifest_current) and which regions of the old image the patch
// overwrote, which is all it takes to bring the manifest up to date:
//   - rolled back: the image is again byte for byte what the manifest describes;
//     only its change time is new;
//   - finished: the chunks the overwritten regions and the growth touch are hashed
//     again from the image, the others come from the manifest.
// Otherwise the manifest is emptied (a scrub then says there is none, and the next
// patch with a chunked trailer writes a new one). Each writes a new manifest and
// renames it over the old one (manifest_storage::publish): a crash leaves the old
// or the new one. A failure leaves the old one, which a scrub reports as stale.
#pragma once

#include "extent_memo.hpp"
#include "format/chunk_hasher.hpp"

#include <rdelta/in_place.hpp>
#include <rdelta/manifest.hpp>

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace rdelta::detail {

/// The hash of chunk [pos, pos + len) of `image`, read into `buf` (len bytes at
/// least); holes are not read. `bytes_read` counts what was.
result<chunk_hash> hash_image_chunk(in_place_file& image, extent_memo& holes, std::uint64_t pos, std::size_t len,
                                    std::span<std::uint8_t> buf, std::uint64_t& bytes_read);

/// Whether `storage` holds a manifest that describes `file` exactly as it is now.
bool manifest_is_current(manifest_storage& storage, in_place_file& file);

/// After a rollback of a patch that began with a current manifest: the same
/// manifest, naming the file's new change time. False when it cannot be written.
bool restamp_manifest(manifest_storage& storage, in_place_file& file);

/// Byte ranges [first, second) of the old image.
using byte_ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

/// After a finished patch that began with a current manifest of the `old_size`-byte
/// file and overwrote the regions `overwritten` of it: the manifest of the file as
/// it is now. False when it cannot be written.
bool rebase_manifest(manifest_storage& storage, in_place_file& file, std::uint64_t old_size, byte_ranges overwritten);

/// Empty the manifest, if there is one: it no longer describes the file.
void clear_manifest(manifest_storage& storage);

}  // namespace rdelta::detail
