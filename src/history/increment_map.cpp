// increment_map.cpp - the pieces of an image at a restore point.
#include "increment_map.hpp"

#include <iterator>

namespace rdelta::detail {

increment_map::increment_map(std::uint64_t length) : length_(length) {
    if (length > 0) map_[0] = piece{0, length, piece::image, 0};
}

void increment_map::split_at(std::uint64_t pos) {
    if (pos == 0 || pos >= length_) return;
    auto it = map_.upper_bound(pos);
    --it;  // the piece holding pos
    piece& p = it->second;
    if (p.from == pos) return;
    piece tail = p;
    tail.from = pos;
    tail.at = p.at + (pos - p.from);
    p.to = pos;
    map_.emplace_hint(std::next(it), pos, tail);
}

void increment_map::resize(std::uint64_t length) {
    if (length < length_) {
        split_at(length);
        map_.erase(map_.lower_bound(length), map_.end());
    } else if (length > length_) {
        map_[length_] = piece{length_, length, piece::zeros, 0};
    }
    length_ = length;
}

void increment_map::put(std::uint64_t from, std::uint64_t len, int source, std::uint64_t at) {
    if (len == 0 || from >= length_) return;
    const std::uint64_t to = from + len > length_ ? length_ : from + len;
    split_at(from);
    split_at(to);
    map_.erase(map_.lower_bound(from), map_.lower_bound(to));
    map_[from] = piece{from, to, source, source == piece::image ? from : at};
}

std::vector<piece> increment_map::pieces() const {
    std::vector<piece> out;
    out.reserve(map_.size());
    for (const auto& [from, p] : map_) {
        // Neighbours that continue one another read as one.
        if (!out.empty() && out.back().source == p.source && out.back().to == p.from &&
            (p.source == piece::zeros || out.back().at + (out.back().to - out.back().from) == p.at)) {
            out.back().to = p.to;
            continue;
        }
        out.push_back(p);
    }
    return out;
}

}  // namespace rdelta::detail
