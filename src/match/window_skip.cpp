// window_skip.cpp - dispatch of the window-skipping kernels by active_isa(), and
// their scalar reference.
//
// The kernels roll the weak sum of a group of windows at once (a prefix scan over
// the lanes, checksum/rolling_lanes_body.inc) and test the group's keys against the
// prefilter with one gather. Below AVX2 the caller's own loop (window_search.hpp),
// which prefetches a group's filter words before testing them, stays the fastest.
#include "window_skip.hpp"

#include "block_index.hpp"
#include "checksum/weak_sum.hpp"
#include "cpu/cpu_features.hpp"
#include "window_skip_kernels.hpp"

namespace rdelta::detail {

namespace {

template <weak_kind Kind, class State>
std::size_t skip_scalar(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit, std::size_t lanes,
                        State& w) noexcept {
    while (limit - p > lanes)
        for (const std::size_t end = p + lanes; p < end;) {
            w.rotate(d[p], d[p + w.count]);
            if (block_index::passes(f, weak_key<Kind>(w.digest()))) return p + 1;
            ++p;
        }
    return p;
}

}  // namespace

// The kernels are x86 ones (levels compare only within one family's ladder); on
// aarch64 there is none yet, and other builds are scalar.
std::size_t skip_rejected(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                          rabinkarp& w) noexcept {
#if !defined(__aarch64__)
    const isa level = active_isa();
    if (level >= isa::avx512) return rabinkarp_skip_avx512(f, d, p, limit, w.count, w.mult_pow, &w.hash);
    if (level >= isa::avx2) return rabinkarp_skip_avx2(f, d, p, limit, w.count, w.mult_pow, &w.hash);
#endif
    (void)f, (void)d, (void)limit, (void)w;
    return p;
}

std::size_t skip_rejected(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                          rollsum& w) noexcept {
#if !defined(__aarch64__)
    const isa level = active_isa();
    if (level >= isa::avx512) return rollsum_skip_avx512(f, d, p, limit, w.count, &w.s1, &w.s2);
    if (level >= isa::avx2) return rollsum_skip_avx2(f, d, p, limit, w.count, &w.s1, &w.s2);
#endif
    (void)f, (void)d, (void)limit, (void)w;
    return p;
}

std::size_t skip_rejected_scalar(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                 std::size_t lanes, rabinkarp& w) noexcept {
    return skip_scalar<weak_kind::rabinkarp>(f, d, p, limit, lanes, w);
}

std::size_t skip_rejected_scalar(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                 std::size_t lanes, rollsum& w) noexcept {
    return skip_scalar<weak_kind::rollsum>(f, d, p, limit, lanes, w);
}

}  // namespace rdelta::detail
