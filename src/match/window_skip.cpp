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
#include "cpu/kernel_table.hpp"
#include "window_skip_kernels.hpp"

#include <array>

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

namespace {

// Widest first. The kernels are x86 ones; on aarch64 there is none yet (the
// caller's loop runs), and builds without SIMD link kernels_portable.cpp's.
#if defined(__aarch64__)
constexpr std::array<isa_kernel<rabinkarp_skip_fn>, 0> rabinkarp_skip_kernels{};
constexpr std::array<isa_kernel<rollsum_skip_fn>, 0> rollsum_skip_kernels{};
#else
constexpr isa_kernel<rabinkarp_skip_fn> rabinkarp_skip_kernels[] = {
    {rabinkarp_skip_avx512, isa::avx512, skip_lanes_avx512},
    {rabinkarp_skip_avx2, isa::avx2, skip_lanes_avx2},
};
constexpr isa_kernel<rollsum_skip_fn> rollsum_skip_kernels[] = {
    {rollsum_skip_avx512, isa::avx512, skip_lanes_avx512},
    {rollsum_skip_avx2, isa::avx2, skip_lanes_avx2},
};
#endif

}  // namespace

std::size_t skip_rejected(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                          rabinkarp& w) noexcept {
    if (const auto* k = first_allowed(rabinkarp_skip_kernels, active_isa()))
        return k->fn(f, d, p, limit, w.count, w.mult_pow, &w.hash);
    return p;
}

std::size_t skip_rejected(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                          rollsum& w) noexcept {
    if (const auto* k = first_allowed(rollsum_skip_kernels, active_isa()))
        return k->fn(f, d, p, limit, w.count, &w.s1, &w.s2);
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
