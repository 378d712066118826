// in_place_check.hpp - the passes of an in-place patch that read the delta
// without writing: every command checked (pass 1), and the would-be output hashed
// against a whole-file trailer (pass 2); pass 3 (in_place.cpp) checks each command
// again as it writes.
//
// The output is written front to back, so the regions already written with new
// data ("dirty") form an increasing list. A COPY is safe when its source avoids
// every dirty region and does not start before its own destination while
// overlapping it (a forward copy would overwrite its own source). A COPY to the
// same offset is a no-op and leaves its region clean.
#pragma once

#include "format/checksum_trailer.hpp"
#include "format/command_stream.hpp"

#include <rdelta/in_place.hpp>

#include <cstdint>
#include <vector>

namespace rdelta::detail {

struct region {
    std::uint64_t from, to;
};

// Regions already written, sorted and disjoint. Memory is bounded: past max_regions
// neighbours are merged pairwise, which only makes the check stricter (a COPY from a
// merged gap is refused). rdelta's --in-place-safe deltas copy only from at or after
// the output offset, beyond every dirty region, so they never reach a lookup.
class dirty_regions {
public:
    void add(std::uint64_t from, std::uint64_t to) {
        if (!list_.empty() && list_.back().to == from)
            list_.back().to = to;
        else
            list_.push_back({from, to});
        if (list_.size() > max_regions) coarsen();
    }
    bool intersects(std::uint64_t from, std::uint64_t to) const {
        // First region ending after `from`.
        auto it = std::upper_bound(list_.begin(), list_.end(), from,
                                   [](std::uint64_t v, const region& r) { return v < r.to; });
        return it != list_.end() && it->from < to;
    }

private:
    static constexpr std::size_t max_regions = std::size_t{1} << 20;  // 16 MiB
    void coarsen() {
        std::size_t k = 0;
        for (std::size_t i = 0; i < list_.size(); i += 2)
            list_[k++] = {list_[i].from, i + 1 < list_.size() ? list_[i + 1].to : list_[i].to};
        list_.resize(k);
    }
    std::vector<region> list_;
};

/// The checks every command must pass before (pass 1) and again while (pass 3) it
/// is applied: within the output limit and the basis, and safe in place.
result<void> check_command(const delta_command& c, std::uint64_t out, std::uint64_t basis_size, dirty_regions& dirty,
                           const patch_options& options);

struct check_result {
    std::uint64_t out_size = 0;
    std::uint64_t delta_size = 0;       // decoded bytes up to END
    std::vector<std::uint8_t> trailer;  // empty: none
};

/// Pass 1 (sum == nullptr) decodes everything and checks it; pass 2 feeds the
/// would-be output to `sum` and compares it with the trailer. Nothing is written.
result<check_result> check(byte_source& in, in_place_file& file, const patch_options& options, job_stats& stats,
                           stream_checksum* sum);

/// The delta's checksum trailer, found by decoding the commands only.
result<std::vector<std::uint8_t>> find_trailer(byte_source& in);

}  // namespace rdelta::detail
