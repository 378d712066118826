// weak_dispatch.hpp - weak sums of whole blocks, on the fastest kernel this CPU has.
//
// Same results as rabinkarp_block()/rollsum_block() (weak_block_sum.hpp), which
// stay the portable fallback; the SIMD kernels (weak_kernels.hpp) are chosen by
// active_isa() on every call, so force_isa() and RDELTA_FORCE_ISA apply at once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// RabinKarp digest of p[0, n): same value as rabinkarp_of().
std::uint32_t rabinkarp_block_fast(const std::uint8_t* p, std::size_t n) noexcept;

/// Classic rollsum halves of p[0, n): same values as rollsum_block().
void rollsum_block_fast(const std::uint8_t* p, std::size_t n, std::uint32_t& s1, std::uint32_t& s2) noexcept;

}  // namespace rdelta::detail
