// rabinkarp.hpp - librsync's RabinKarp rolling hash: h = M^n + sum b[i]*M^(n-1-i)
// mod 2^32 (seed 1, so zero blocks of different lengths differ).
#pragma once

#include "weak_dispatch.hpp"

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

struct rabinkarp {
    static constexpr std::uint32_t mult = 0x08104225u;
    static constexpr std::uint32_t inv_mult = 0x98f009adu;  // mult^-1 mod 2^32
    static constexpr std::uint32_t adjust = mult - 1;       // (mult - 1) * seed
    std::uint32_t hash = 1;
    std::uint32_t mult_pow = 1;  // mult^count
    std::size_t count = 0;

    void init(const std::uint8_t* p, std::size_t n) noexcept {
        hash = rabinkarp_block_fast(p, n);
        mult_pow = power(n);
        count = n;
    }
    /// mult^n mod 2^32 by squaring.
    static std::uint32_t power(std::size_t n) noexcept {
        std::uint32_t result = 1, base = mult;
        for (; n; n >>= 1, base *= base)
            if (n & 1) result *= base;
        return result;
    }
    void rotate(std::uint8_t out, std::uint8_t in) noexcept { hash = hash * mult + in - mult_pow * (out + adjust); }
    void rollout(std::uint8_t out) noexcept {
        mult_pow *= inv_mult;
        hash -= mult_pow * (out + adjust);
        --count;
    }
    void rollin(std::uint8_t in) noexcept {
        hash = hash * mult + in;
        mult_pow *= mult;
        ++count;
    }
    std::uint32_t digest() const noexcept { return hash; }
};

/// The digest of one block: the plain reference loop.
inline std::uint32_t rabinkarp_of(const std::uint8_t* p, std::size_t n) noexcept {
    std::uint32_t h = 1;
    for (std::size_t i = 0; i < n; ++i) h = h * rabinkarp::mult + p[i];
    return h;
}

}  // namespace rdelta::detail
