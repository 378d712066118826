// rollsum.hpp - librsync's classic rolling checksum (Adler-32-like, no modulus prime,
// each byte offset by 31). Only the low 16 bits of each half reach the digest, so
// 32-bit wrap-around arithmetic is exact.
#pragma once

#include "weak_dispatch.hpp"

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

struct rollsum {
    static constexpr std::uint32_t char_offset = 31;
    std::uint32_t s1 = 0, s2 = 0;
    std::size_t count = 0;

    /// Sum of a whole window (replaces the state).
    void init(const std::uint8_t* p, std::size_t n) noexcept {
        rollsum_block_fast(p, n, s1, s2);
        count = n;
    }
    /// Slide the window by one byte: drop `out` at the front, append `in`.
    void rotate(std::uint8_t out, std::uint8_t in) noexcept {
        s1 += std::uint32_t{in} - out;
        s2 += s1 - static_cast<std::uint32_t>(count) * (out + char_offset);
    }
    /// Drop the first byte of the window.
    void rollout(std::uint8_t out) noexcept {
        s1 -= out + char_offset;
        s2 -= static_cast<std::uint32_t>(count) * (out + char_offset);
        --count;
    }
    /// Append a byte to the window.
    void rollin(std::uint8_t in) noexcept {
        s1 += in + char_offset;
        s2 += s1;
        ++count;
    }
    std::uint32_t digest() const noexcept { return (s2 << 16) | (s1 & 0xffff); }
};

/// The digest of one block: the plain reference loop.
inline std::uint32_t rollsum_of(const std::uint8_t* p, std::size_t n) noexcept {
    std::uint32_t a = 0, b = 0;
    for (std::size_t i = 0; i < n; ++i) {
        a += p[i] + rollsum::char_offset;
        b += a;
    }
    return (b << 16) | (a & 0xffff);
}

}  // namespace rdelta::detail
