// work_budget.hpp - a cap on the strong hashing a delta may do.
//
// Every weak-sum hit costs a strong sum of a whole block, and the signature alone
// decides how many windows hit: a crafted signature (one record whose weak sum
// is that of the new data's windows, with a wrong strong sum) makes each window
// cost a block of hashing, minutes for a few MiB, in rdiff too. An honest
// signature costs about basis size / 2^32 bytes of hashing per input byte on
// data that does not match (256 for a 1 TiB basis), and about one per byte on
// data that does. The budget is `factor` bytes per input byte plus a constant;
// a search over budget stops looking (every later window misses) and the job
// fails, so output produced then is never used.
#pragma once

#include <cstdint>
#include <limits>

namespace rdelta::detail {

struct work_budget {
    static constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t limit = unlimited;  // bytes of strong hashing allowed so far
    std::uint64_t used = 0;           // bytes hashed so far
    bool tripped = false;             // once over, always over: scans since then are cut short

    bool exceeded() const noexcept { return tripped; }
    void charge(std::uint64_t bytes) noexcept {
        used += bytes;
        tripped = tripped || used > limit;
    }

    /// The limit after `input` bytes of new data: factor * input + a constant that
    /// covers the windows of a short file and the shrinking windows at its end.
    static std::uint64_t limit_for(std::uint64_t factor, std::uint64_t input, std::uint64_t block_len) noexcept {
        if (factor == 0) return unlimited;
        const std::uint64_t constant = (std::uint64_t{64} << 20) + 16 * block_len;
        if (input > (unlimited - constant) / factor) return unlimited;
        return factor * input + constant;
    }
};

}  // namespace rdelta::detail
