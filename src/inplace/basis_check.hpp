// basis_check.hpp - whether an in-place delta was made for the image as it is now,
// decided from the image's manifest alone, before anything is read or written.
//
// A delta of literals and same-offset COPYs (the usual in-place delta of a disk
// image) applies to any image of the right size, and its checksum trailer only
// proves what the output will be. Its basis root ("rdcb" trailer) says which image
// it was made for: a manifest describing the image with another root means the
// delta is stale (or for another image) and must not roll the image back. A
// manifest whose root is already the delta's output means the night was applied.
#pragma once

#include "format/chunk_hasher.hpp"

#include <rdelta/in_place.hpp>
#include <rdelta/manifest.hpp>

#include <span>
#include <string>

namespace rdelta::detail {

enum class basis_verdict {
    unknown,        ///< no chunked trailer, or no manifest describing the image now
    no_basis_root,  ///< the image's root is known, the delta names no basis
    fits,           ///< the delta's basis root is the image's root
    up_to_date,     ///< the image already is the delta's output
    other_basis,    ///< the delta names a basis root that is not the image's
};

struct basis_finding {
    basis_verdict verdict = basis_verdict::unknown;
    chunk_hash image_root{};  ///< with a known verdict: the image's root
};

/// Compare a delta's `trailer` with the manifest of `file` (nullptr: none).
basis_finding check_basis(manifest_storage* manifest, in_place_file& file, std::span<const std::uint8_t> trailer);

/// "DELTA: was made for another version of the image ..." with both roots.
std::string other_basis_message(const std::string& delta_name, std::span<const std::uint8_t> trailer,
                                const chunk_hash& image_root);

}  // namespace rdelta::detail
