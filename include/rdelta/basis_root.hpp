// rdelta/basis_root.hpp - the chunk root of the file a signature was made of, kept
// beside the signature, so that a delta made from it names the basis it expects.
//
// A delta with a chunked checksum trailer proves what its output will be, not which
// file it applies to: a delta of literals and same-offset COPYs applies to any
// image of the right size. Naming the basis's root (delta_options::basis_root) lets
// an in-place patch refuse a stale or misdirected delta from the image's manifest
// alone. Where the root comes from: `delta --new-signature NEXT` knows the new
// file's root (its trailer's) and records it beside NEXT; the next night's delta
// from NEXT reads it back. The record names the signature's own bytes (XXH3-128),
// so a signature replaced or regenerated since is never paired with a stale root.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rdelta {

/// A chunk root (docs/format.md, "Checksum trailer"): XXH3-128, canonical form.
using chunk_root = std::array<std::uint8_t, 16>;

/// Where the root of `signature_path`'s file is kept: ".NAME.rdelta-root" in the
/// signature's folder.
RDELTA_API std::string basis_root_path(const std::string& signature_path);

/// Record, beside the signature file at `signature_path` as it is now, that the file
/// it describes has chunk root `root`. Published as any output (a complete file or
/// none, replacing the previous record); `durable` flushes it to disk first.
RDELTA_API result<void> write_basis_root(const std::string& signature_path, const chunk_root& root, bool durable);

/// The root recorded beside `signature_path`: nullopt when there is none, when it is
/// not a regular file owned by the caller or root, when it is damaged, or when the
/// signature's bytes are no longer those it was recorded for.
RDELTA_API std::optional<chunk_root> read_basis_root(const std::string& signature_path);

/// The new file's chunk root from the last bytes a delta ends with (at least its
/// trailer): nullopt when it ends in no chunked trailer.
RDELTA_API std::optional<chunk_root> delta_output_root(std::span<const std::uint8_t> delta_tail);

/// 32 hex digits, and back (nullopt unless exactly 32 hex digits).
RDELTA_API std::string root_to_hex(const chunk_root& root);
RDELTA_API std::optional<chunk_root> root_from_hex(std::string_view hex);

}  // namespace rdelta
