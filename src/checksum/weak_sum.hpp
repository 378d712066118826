// weak_sum.hpp - the weak sum of a block for either algorithm, and the lookup key
// derived from it (in memory only; files store the raw digest).
#pragma once

#include "rabinkarp.hpp"
#include "rollsum.hpp"

#include <rdelta/format.hpp>

namespace rdelta::detail {

/// Weak digest of a block (the fast block kernels).
inline std::uint32_t weak_sum_of(weak_kind kind, const std::uint8_t* p, std::size_t n) noexcept {
    if (kind == weak_kind::rabinkarp) return rabinkarp_block_fast(p, n);
    std::uint32_t s1, s2;
    rollsum_block_fast(p, n, s1, s2);
    return (s2 << 16) | (s1 & 0xffff);
}

/// MurmurHash3's 32-bit finaliser: librsync mixes rollsum digests with it (a bijection).
constexpr std::uint32_t mix32(std::uint32_t h) noexcept {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/// librsync's hash-table key of a weak digest. Key 0 is reserved there and replaced
/// by 0xffffffff, which makes those two digests equal keys: part of match semantics.
template <weak_kind Kind>
constexpr std::uint32_t weak_key(std::uint32_t digest) noexcept {
    const std::uint32_t k = Kind == weak_kind::rollsum ? mix32(digest) : digest;
    return k ? k : 0xffffffffu;
}

inline std::uint32_t weak_key(weak_kind kind, std::uint32_t digest) noexcept {
    return kind == weak_kind::rollsum ? weak_key<weak_kind::rollsum>(digest)
                                      : weak_key<weak_kind::rabinkarp>(digest);
}

}  // namespace rdelta::detail
