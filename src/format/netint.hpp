// netint.hpp - big-endian integers of 1, 2, 4 or 8 bytes, as used by both file formats.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// Bytes needed for v in librsync's encoding: 1, 2, 4 or 8 (0 takes 1).
constexpr int int_width(std::uint64_t v) noexcept {
    return v < (1u << 8) ? 1 : v < (1u << 16) ? 2 : v <= 0xffffffffu ? 4 : 8;
}

/// Write v big-endian in `width` bytes at p.
inline void put_be(std::uint8_t* p, std::uint64_t v, int width) noexcept {
    for (int i = width - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<std::uint8_t>(v);
}

/// Read a big-endian value of `width` bytes at p.
inline std::uint64_t get_be(const std::uint8_t* p, int width) noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < width; ++i) v = (v << 8) | p[i];
    return v;
}

inline std::uint32_t get_be32(const std::uint8_t* p) noexcept {
    return static_cast<std::uint32_t>(get_be(p, 4));
}

}  // namespace rdelta::detail
