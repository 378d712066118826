// extent_memo.hpp - a file's holes and data as learnt, one extent at a time.
#pragma once

#include <rdelta/in_place.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace rdelta::detail {

// Each query learns the extent from its start to the end of the file: a sparse
// image's COPYs of zeros ask about the same few holes over and over (without this,
// two lseek()s per COPY). Only for regions the patch has not written yet: a hole
// learnt before a write into it is not forgotten.
class extent_memo {
public:
    explicit extent_memo(in_place_file& file) : file_(file) {}
    bool is_hole(std::uint64_t pos, std::uint64_t len) {
        if (len == 0) return true;
        if (pos >= hole_.first && pos + len <= hole_.second) return true;
        if (pos >= data_.first && pos < data_.second) return false;
        const std::uint64_t size = file_.size();
        if (pos >= size) return false;
        const auto [hole, run] = file_.extent(pos, size - pos);
        const std::uint64_t end = pos + std::max<std::uint64_t>(run, 1);
        (hole ? hole_ : data_) = {pos, end};
        return hole && pos + len <= end;
    }

private:
    in_place_file& file_;
    std::pair<std::uint64_t, std::uint64_t> hole_{0, 0}, data_{0, 0};
};

}  // namespace rdelta::detail
