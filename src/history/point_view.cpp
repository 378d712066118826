// point_view.cpp - reading the image as it was at a restore point.
#include "point_view.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstring>

namespace rdelta::detail {

result<std::unique_ptr<point_view>> point_view::open(in_place_file& image, history_folder& h, std::uint64_t number) {
    auto all = h.load_all();
    if (!all) return std::move(all).err();
    if (number == 0 || number > all->size())
        return fail(errc::param_error, h.name() + ": has no point " + std::to_string(number) + " (it has " +
                                           std::to_string(all->size()) + ")");
    if ((*all)[0].info.next_length != image.size())
        return fail(errc::corrupt, h.name() + ": the image changed since its newest point was kept (it is " +
                                       std::to_string(image.size()) + " bytes long, the point says " +
                                       std::to_string((*all)[0].info.next_length) + "): no point can be restored");
    std::unique_ptr<point_view> view(new point_view(image));
    increment_map map(image.size());
    for (std::uint64_t k = 0; k < number; ++k) {
        auto& p = (*all)[k];
        auto refs = validate(*p.file, p.header);
        if (!refs) return fail(errc::corrupt, "point " + std::to_string(p.info.number) + ": " + refs.err().message);
        map.resize(p.header.old_size);
        // Within one increment the first record saved of a region holds its old bytes.
        for (auto it = refs->rbegin(); it != refs->rend(); ++it)
            map.put(it->pos, it->len, it->kind == record_hole ? piece::zeros : static_cast<int>(k), it->at);
        view->files_.push_back(std::move(p.file));
    }
    view->point_ = (*all)[number - 1].info;
    view->length_ = map.length();
    view->pieces_ = map.pieces();
    return view;
}

const piece* point_view::piece_at(std::uint64_t pos) const {
    auto it = std::upper_bound(pieces_.begin(), pieces_.end(), pos,
                               [](std::uint64_t v, const piece& p) { return v < p.from; });
    if (it == pieces_.begin()) return nullptr;
    --it;
    return pos < it->to ? &*it : nullptr;
}

result<std::size_t> point_view::read_piece(const piece& p, std::uint64_t pos, std::span<std::uint8_t> out) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), p.to - pos));
    if (p.source == piece::zeros) {
        std::memset(out.data(), 0, n);
        return n;
    }
    std::size_t done = 0;
    while (done < n) {
        const std::uint64_t at = pos + done;
        auto got = p.source == piece::image ? image_.read(at, out.subspan(done, n - done))
                                            : files_[static_cast<std::size_t>(p.source)]->read(
                                                  p.at + (at - p.from), out.subspan(done, n - done));
        if (!got) return std::move(got).err();
        if (*got == 0)
            return fail(errc::corrupt, (p.source == piece::image ? std::string("the image")
                                                                 : files_[static_cast<std::size_t>(p.source)]->name()) +
                                           " ended early while restoring point " + std::to_string(point_.number));
        done += *got;
    }
    (p.source == piece::image ? image_read_ : increment_read_) += n;
    return n;
}

result<std::size_t> point_view::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    std::size_t done = 0;
    while (done < out.size() && pos + done < length_) {
        const piece* p = piece_at(pos + done);
        if (!p) break;
        auto got = read_piece(*p, pos + done, out.subspan(done));
        if (!got) return std::move(got).err();
        done += *got;
    }
    return done;
}

bool point_view::is_hole(std::uint64_t pos, std::uint64_t len) {
    for (std::uint64_t at = pos; at < pos + len;) {
        const piece* p = piece_at(at);
        if (!p) return false;
        const std::uint64_t end = std::min(p->to, pos + len);
        if (p->source == piece::image ? !image_.is_hole(at, end - at) : p->source != piece::zeros) return false;
        at = end;
    }
    return true;
}

}  // namespace rdelta::detail
