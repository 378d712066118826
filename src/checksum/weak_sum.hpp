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

/// The weak digest of a block fed in pieces of any length: each piece's sums come
/// from the block kernels and are joined (RabinKarp: h(AB) = h(A) M^|B| + h(B) -
/// M^|B|; rollsum: s1 adds up, s2(AB) = s2(A) + |B| s1(A) + s2(B)).
class weak_sum_parts {
public:
    explicit weak_sum_parts(weak_kind kind) noexcept : kind_(kind), a_(kind == weak_kind::rabinkarp ? 1 : 0) {}
    void update(const std::uint8_t* p, std::size_t n) noexcept {
        if (kind_ == weak_kind::rabinkarp) {
            const std::uint32_t power = rabinkarp::power(n);
            a_ = a_ * power + (rabinkarp_block_fast(p, n) - power);
            return;
        }
        std::uint32_t s1, s2;
        rollsum_block_fast(p, n, s1, s2);
        b_ += static_cast<std::uint32_t>(n) * a_ + s2;
        a_ += s1;
    }
    std::uint32_t digest() const noexcept { return kind_ == weak_kind::rabinkarp ? a_ : (b_ << 16) | (a_ & 0xffff); }

private:
    weak_kind kind_;
    std::uint32_t a_;      // RabinKarp's hash, or rollsum's s1
    std::uint32_t b_ = 0;  // rollsum's s2
};

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
    return kind == weak_kind::rollsum ? weak_key<weak_kind::rollsum>(digest) : weak_key<weak_kind::rabinkarp>(digest);
}

}  // namespace rdelta::detail
