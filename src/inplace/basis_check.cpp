// basis_check.cpp - a delta's basis and output roots against the image's manifest.
#include "basis_check.hpp"

#include "format/checksum_trailer.hpp"
#include "output_hash.hpp"

namespace rdelta::detail {

basis_finding check_basis(manifest_storage* manifest, in_place_file& file, std::span<const std::uint8_t> trailer) {
    if (!manifest || !is_chunk_trailer(trailer.data(), trailer.size())) return {};
    const auto known = manifest_reader::open(*manifest, file, trailer_chunk_size(trailer.data()), file.size());
    if (!known) return {};
    basis_finding found{basis_verdict::no_basis_root, known->header().root};
    if (trailer_length(trailer.data()) == file.size() && trailer_root(trailer.data()) == found.image_root)
        found.verdict = basis_verdict::up_to_date;
    else if (const auto basis = trailer_basis_root(trailer.data(), trailer.size()))
        found.verdict = *basis == found.image_root ? basis_verdict::fits : basis_verdict::other_basis;
    return found;
}

std::string other_basis_message(const std::string& delta_name, std::span<const std::uint8_t> trailer,
                                const chunk_hash& image_root) {
    const auto basis = trailer_basis_root(trailer.data(), trailer.size());
    return delta_name + ": was made for another version of the file (basis root " + (basis ? hash_hex(*basis) : "?") +
           ", the file's is " + hash_hex(image_root) + "): a stale or misdirected delta; nothing was changed";
}

}  // namespace rdelta::detail
