// parallel_scan.hpp - delta scanning on several cores with output identical to
// the sequential scan.
//
// The range is cut into segments. The first is scanned for real; every other one
// is scanned speculatively from its first byte, recording its matches. Which
// window the scan looks at next depends only on the current position, so once
// the real scan reaches a position that a speculative scan also visited, the
// rest of that speculative scan is exactly what the real scan would do: its
// matches are replayed into the real scan. A speculative scan visits every
// position of its segment except those strictly inside its matches; when the
// real scan lands inside one, it scans on by itself until it leaves it.
#pragma once

#include <atomic>

#include "core/parallel.hpp"
#include "core/test_hooks.hpp"
#include "matcher.hpp"

#include <algorithm>
#include <vector>

namespace rdelta::detail {

// Work per core that amortises the stitching at segment boundaries (where the real
// scan may have to scan on alone for up to a block before it meets the speculative one).
inline std::size_t min_segment(std::size_t block_len) {
    return std::max<std::size_t>(parallel_grain.load(std::memory_order_relaxed), 2 * block_len);
}

// Below this many windows per call there is nothing to share.
constexpr std::size_t segments_floor(unsigned threads) {
    return std::size_t{threads} * 2;
}

template <weak_kind Kind>
void scan_parallel(matcher<Kind>& real, const block_index& index, std::size_t block_len, strong_kind strong,
                   const std::uint8_t* d, std::size_t end, unsigned threads, job_stats& stats, work_budget& budget) {
    const std::size_t stop = end - block_len;  // caller ensures end > block_len
    const std::size_t from = real.position();
    if (from >= stop || stop - from < segments_floor(threads)) return real.scan_until(d, stop, end);
    // One segment per thread. Four per thread, taken by whichever thread is free
    // (to balance the scan against the thread that writes its output), made a GiB
    // delta into a file on two cores slower in two of three alternating series
    // (bench/README.md, "Measurements behind design choices").
    const std::size_t segments = threads;
    test_hooks::count(test_hooks::event::parallel_scan, 1);
    const std::size_t seg_len = (stop - from) / segments;
    auto boundary = [&](std::size_t k) { return k >= segments ? stop : from + k * seg_len; };

    struct probe {
        std::vector<search_hit> hits;
        std::size_t exit = 0;
        job_stats stats;
        work_budget budget;
    };
    std::vector<probe> probes(segments);
    // Each speculative scan may spend what is left; the real scan charges the job.
    for (probe& pr : probes) pr.budget.limit = budget.exceeded() ? 0 : budget.limit - budget.used;
    parallel_for(
        segments, threads,
        [&](std::size_t k) {
            if (k == 0) return real.scan_until(d, boundary(1), end);
            probe& pr = probes[k];
            window_search<Kind> search(index, block_len, strong, pr.stats, pr.budget, real.in_place_safe(),
                                       real.base());
            std::size_t pos = boundary(k);
            const std::size_t limit = boundary(k + 1);
            while (pos < limit) {
                const search_hit hit = search.find_next(d, pos, limit, end);
                if (hit.block < 0) {
                    pos = limit;
                    break;
                }
                pr.hits.push_back(hit);
                pos = hit.pos + block_len;
            }
            pr.exit = pos;
        },
        true);  // the real scan emits output, which may call the caller's sink

    for (std::size_t k = 1; k < segments; ++k) {
        const probe& pr = probes[k];
        real.scan_until(d, boundary(k), end);
        // A speculative scan may end past `stop` (its last match jumps over it).
        while (real.position() < std::min(pr.exit, stop)) {
            const std::size_t pos = real.position();
            auto next = std::lower_bound(pr.hits.begin(), pr.hits.end(), pos,
                                         [](const search_hit& h, std::size_t p) { return h.pos < p; });
            if (next != pr.hits.begin() && pos < std::prev(next)->pos + block_len) {
                // Inside a speculative match: that position was never visited there.
                real.scan_until(d, std::min(std::prev(next)->pos + block_len, stop), end);
                continue;
            }
            real.replay(d, pr.hits.data() + (next - pr.hits.begin()), static_cast<std::size_t>(pr.hits.end() - next),
                        pr.exit);
            break;
        }
        stats.searches += pr.stats.searches;
        stats.weak_hits += pr.stats.weak_hits;
        stats.strong_calcs += pr.stats.strong_calcs;
        stats.matches += pr.stats.matches;
        stats.strong_bytes += pr.stats.strong_bytes;
        budget.charge(pr.budget.used);
        if (budget.exceeded()) return;  // the job fails; the output is never used
    }
    real.scan_until(d, stop, end);
}

}  // namespace rdelta::detail
