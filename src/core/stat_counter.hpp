// stat_counter.hpp - adding a length a delta declares to a total.
//
// A delta's command lengths are untrusted and reach 2^63 - 1: a LITERAL that
// declares that much after another literal is counted before its data is found
// missing, and a plain `+=` on the signed totals of job_stats would overflow
// (undefined behaviour); three such COPYs wrap an unsigned total to a small,
// wrong number. The totals stop at the largest value instead.
#pragma once

#include <cstdint>
#include <limits>

namespace rdelta::detail {

inline void add_declared(std::int64_t& total, std::uint64_t n) noexcept {
    constexpr auto top = std::numeric_limits<std::int64_t>::max();
    const std::uint64_t room = total < 0 ? static_cast<std::uint64_t>(top) : static_cast<std::uint64_t>(top - total);
    total = n >= room ? top : total + static_cast<std::int64_t>(n);
}

inline std::uint64_t capped_sum(std::uint64_t a, std::uint64_t b) noexcept {
    return b > std::numeric_limits<std::uint64_t>::max() - a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

}  // namespace rdelta::detail
