// weak_block_sum.cpp - eight-bytes-per-step weak block sums.
#include "weak_block_sum.hpp"

#include "rabinkarp.hpp"

namespace rdelta::detail {

namespace {

constexpr std::uint32_t pow_mult(int k) {
    std::uint32_t r = 1;
    for (int i = 0; i < k; ++i) r *= rabinkarp::mult;
    return r;
}

}  // namespace

std::uint32_t rabinkarp_block(const std::uint8_t* p, std::size_t n) noexcept {
    constexpr std::uint32_t m1 = pow_mult(1), m2 = pow_mult(2), m3 = pow_mult(3), m4 = pow_mult(4), m5 = pow_mult(5),
                            m6 = pow_mult(6), m7 = pow_mult(7), m8 = pow_mult(8);
    std::uint32_t h = 1;  // the seed
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const std::uint32_t folded = p[i] * m7 + p[i + 1] * m6 + p[i + 2] * m5 + p[i + 3] * m4 + p[i + 4] * m3 +
                                     p[i + 5] * m2 + p[i + 6] * m1 + p[i + 7];
        h = h * m8 + folded;
    }
    for (; i < n; ++i) h = h * rabinkarp::mult + p[i];
    return h;
}

void rollsum_block(const std::uint8_t* p, std::size_t n, std::uint32_t& s1, std::uint32_t& s2) noexcept {
    // Sums of the raw bytes first; the +31 offset of every byte is added at the end:
    // it contributes 31*n to s1 and 31*n*(n+1)/2 to s2.
    std::uint32_t a = 0, b = 0;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        b += 8 * a + 8u * p[i] + 7u * p[i + 1] + 6u * p[i + 2] + 5u * p[i + 3] + 4u * p[i + 4] + 3u * p[i + 5] +
             2u * p[i + 6] + p[i + 7];
        a += p[i] + p[i + 1] + p[i + 2] + p[i + 3] + p[i + 4] + p[i + 5] + p[i + 6] + p[i + 7];
    }
    for (; i < n; ++i) {
        a += p[i];
        b += a;
    }
    const auto n32 = static_cast<std::uint32_t>(n);
    const std::uint64_t tri = static_cast<std::uint64_t>(n) * (n + 1) / 2;
    s1 = a + 31u * n32;
    s2 = b + 31u * static_cast<std::uint32_t>(tri);
}

}  // namespace rdelta::detail
