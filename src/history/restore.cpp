// restore.cpp - writing the image as it was at a restore point, checked against
// the point's root as it is written.
#include "format/chunk_hasher.hpp"
#include "history_folder.hpp"
#include "point_view.hpp"

#include <rdelta/history.hpp>
#include <rdelta/in_place.hpp>

#include <algorithm>
#include <vector>

namespace rdelta {

namespace {

result<detail::history_folder*> folder_of(history& h) {
    auto* f = dynamic_cast<detail::history_folder*>(&h);
    if (!f) return fail(errc::internal_error, "not a history opened by history::open()");
    return f;
}

constexpr std::size_t piece_bytes = std::size_t{1} << 20;

// Feed `n` zero bytes to the hash and the output.
result<void> put_zeros(detail::chunk_hasher& hash, const byte_sink& out, std::uint64_t n) {
    static const std::vector<std::uint8_t> zeros(piece_bytes, 0);
    hash.update_zeros(n);
    while (n > 0) {
        const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(n, zeros.size()));
        if (auto w = out({zeros.data(), k}); !w) return w;
        n -= k;
    }
    return {};
}

result<void> copy_piece(detail::point_view& view, in_place_file& image, const detail::piece& p,
                        detail::chunk_hasher& hash, const byte_sink& out, std::vector<std::uint8_t>& buf) {
    if (p.source == detail::piece::zeros) return put_zeros(hash, out, p.to - p.from);
    for (std::uint64_t at = p.from; at < p.to;) {
        if (p.source == detail::piece::image) {
            const auto [hole, run] = image.extent(at, p.to - at);
            if (hole && run > 0) {
                if (auto z = put_zeros(hash, out, run); !z) return z;
                at += run;
                continue;
            }
        }
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), p.to - at));
        auto got = view.read_piece(p, at, {buf.data(), n});
        if (!got) return std::move(got).err();
        hash.update(buf.data(), *got);
        if (auto w = out({buf.data(), *got}); !w) return w;
        at += *got;
    }
    return {};
}

}  // namespace

result<std::unique_ptr<basis_reader>> open_point(in_place_file& image, history& h, std::uint64_t number,
                                                 history_point* info) {
    auto folder = folder_of(h);
    if (!folder) return std::move(folder).err();
    auto view = detail::point_view::open(image, **folder, number);
    if (!view) return std::move(view).err();
    if (info) *info = (*view)->point();
    return std::unique_ptr<basis_reader>(std::move(*view));
}

result<restore_stats> restore_point(in_place_file& image, history& h, std::uint64_t number, const byte_sink& out) {
    auto folder = folder_of(h);
    if (!folder) return std::move(folder).err();
    auto view = detail::point_view::open(image, **folder, number);
    if (!view) return std::move(view).err();
    restore_stats stats;
    stats.point = (*view)->point();
    detail::chunk_hasher hash(stats.point.chunk_size);
    std::vector<std::uint8_t> buf(piece_bytes);
    for (const auto& p : (*view)->pieces())
        if (auto c = copy_piece(**view, image, p, hash, out, buf); !c) return std::move(c).err();
    if (hash.root() != stats.point.root)
        return fail(errc::corrupt, "point " + std::to_string(number) + " (" + stats.point.file +
                                       "): the restored image does not match the point's root: the image or the "
                                       "history was changed or damaged since the point was kept");
    stats.image_bytes_read = (*view)->image_bytes_read();
    stats.increment_bytes_read = (*view)->increment_bytes_read();
    stats.bytes_written = stats.point.length;
    return stats;
}

}  // namespace rdelta
