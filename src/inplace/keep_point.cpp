// keep_point.cpp - the facts a restore point keeps about the image it replaces.
#include "keep_point.hpp"

#include "format/checksum_trailer.hpp"

#include <algorithm>
#include <ctime>
#include <vector>

namespace rdelta::detail {

result<chunk_hash> file_root(in_place_file& file, std::uint32_t chunk_size) {
    chunk_hasher hash(chunk_size);
    std::vector<std::uint8_t> buf(std::size_t{1} << 20);
    const std::uint64_t size = file.size();
    for (std::uint64_t at = 0; at < size;) {
        const auto [hole, run] = file.extent(at, std::min<std::uint64_t>(size - at, buf.size()));
        const std::uint64_t n = std::max<std::uint64_t>(run, 1);
        if (hole) {
            hash.update_zeros(n);
            at += n;
            continue;
        }
        auto got = file.read(at, {buf.data(), static_cast<std::size_t>(n)});
        if (!got) return std::move(got).err();
        if (*got == 0) return fail(errc::io_error, "the file ended while it was hashed");
        hash.update(buf.data(), *got);
        at += *got;
    }
    return hash.root();
}

result<point_footer> start_point(in_place_file& file, std::span<const std::uint8_t> trailer, const basis_finding& basis,
                                 std::uint64_t new_size, const std::array<std::uint8_t, 16>& delta_digest) {
    point_footer f;
    const bool chunked = is_chunk_trailer(trailer.data(), trailer.size());
    f.chunk_size = chunked ? trailer_chunk_size(trailer.data()) : default_chunk_size;
    if (basis.verdict != basis_verdict::unknown) {
        f.old_root = basis.image_root;
    } else {
        auto root = file_root(file, f.chunk_size);
        if (!root) return std::move(root).err();
        f.old_root = *root;
    }
    if (chunked) f.new_root = trailer_root(trailer.data());
    std::tie(f.time_s, f.time_ns) = file.modification_time();
    f.kept_s = static_cast<std::int64_t>(std::time(nullptr));
    f.old_size = file.size(), f.new_size = new_size;
    f.delta = delta_digest;
    return f;
}

}  // namespace rdelta::detail
