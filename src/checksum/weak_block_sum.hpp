// weak_block_sum.hpp - weak sums of whole blocks, eight bytes per step.
//
// The plain loops in rollsum.hpp/rabinkarp.hpp carry a dependency from byte to
// byte (one multiply, or two adds, per byte). Here eight bytes are folded per
// step with precomputed powers, so the products are independent and the chain is
// one step per eight bytes. Tested against the plain loops.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// RabinKarp digest of p[0, n): same value as rabinkarp_of().
std::uint32_t rabinkarp_block(const std::uint8_t* p, std::size_t n) noexcept;

/// Classic rollsum halves of p[0, n): same values as rollsum::init().
void rollsum_block(const std::uint8_t* p, std::size_t n, std::uint32_t& s1, std::uint32_t& s2) noexcept;

}  // namespace rdelta::detail
