// slice_size.hpp - how many blocks one thread hashes at a time when it makes a
// signature (signature_file.cpp reads a slice of the basis per thread;
// signature.cpp's job hands each thread a slice of its input).
//
// A slice holds at least as many blocks as one multi-buffer call takes
// (strong_sum_lanes: 16 with AVX-512): blocks hashed one per slice go through the
// single-buffer code, several times slower with 1 MiB blocks, what a 1 TiB basis
// gets by default (bench/README.md, "Measurements behind design choices").
// Small blocks fill a slice of `cache_bytes` (a core's L2) instead. All threads'
// slices together stay within slice_budget, or one block each when blocks are larger.
#pragma once

#include <algorithm>
#include <cstddef>

namespace rdelta::detail {

constexpr std::size_t slice_budget = std::size_t{32} << 20;

/// Blocks of `block_len` bytes in one thread's slice.
inline std::size_t blocks_per_slice(std::size_t block_len, std::size_t lanes, unsigned threads,
                                    std::size_t cache_bytes) noexcept {
    const std::size_t per_thread = std::max(cache_bytes, slice_budget / std::max(1u, threads));
    return std::max({std::size_t{1}, cache_bytes / block_len, std::min(lanes, per_thread / block_len)});
}

}  // namespace rdelta::detail
