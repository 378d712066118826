// window_skip_portable.cpp - the x86 window-skipping kernels' entry points for
// builds without them (aarch64, other CPUs, or -Dsimd=disabled): each runs the
// scalar reference. skip_rejected() never picks them there (window_skip.cpp);
// they exist so that the kernel tests link and pass on any CPU.
#include "window_skip.hpp"
#include "window_skip_kernels.hpp"

namespace rdelta::detail {

namespace {

std::size_t rabinkarp_lanes(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit, std::size_t n,
                            std::uint32_t mult_pow, std::uint32_t* hash, std::size_t lanes) noexcept {
    rabinkarp w;
    w.hash = *hash, w.mult_pow = mult_pow, w.count = n;
    p = skip_rejected_scalar(f, d, p, limit, lanes, w);
    *hash = w.hash;
    return p;
}

std::size_t rollsum_lanes(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit, std::size_t n,
                          std::uint32_t* s1, std::uint32_t* s2, std::size_t lanes) noexcept {
    rollsum w;
    w.s1 = *s1, w.s2 = *s2, w.count = n;
    p = skip_rejected_scalar(f, d, p, limit, lanes, w);
    *s1 = w.s1, *s2 = w.s2;
    return p;
}

}  // namespace

std::size_t rabinkarp_skip_avx2(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                std::size_t n, std::uint32_t mult_pow, std::uint32_t* hash) noexcept {
    return rabinkarp_lanes(f, d, p, limit, n, mult_pow, hash, skip_lanes_avx2);
}
std::size_t rollsum_skip_avx2(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit, std::size_t n,
                              std::uint32_t* s1, std::uint32_t* s2) noexcept {
    return rollsum_lanes(f, d, p, limit, n, s1, s2, skip_lanes_avx2);
}
std::size_t rabinkarp_skip_avx512(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                  std::size_t n, std::uint32_t mult_pow, std::uint32_t* hash) noexcept {
    return rabinkarp_lanes(f, d, p, limit, n, mult_pow, hash, skip_lanes_avx512);
}
std::size_t rollsum_skip_avx512(prefilter_view f, const std::uint8_t* d, std::size_t p, std::size_t limit,
                                std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept {
    return rollsum_lanes(f, d, p, limit, n, s1, s2, skip_lanes_avx512);
}

}  // namespace rdelta::detail
