// kernel_table.hpp - the one shape of every SIMD dispatcher: a table of this
// build's kernels, widest first, each with the level it needs, and the choice
// of the first row the active level allows. The tables list their own family's
// kernels only (`#if defined(__aarch64__)`), so levels compare within one ladder
// (cpu_features.hpp), and a level that allows no row leaves the caller's scalar
// reference.
#pragma once

#include "cpu_features.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace rdelta::detail {

/// One row of a dispatch table. `size` is what the kernel is chosen by: the
/// messages one call hashes for a multi-buffer kernel, or the shortest input a
/// single-buffer kernel is worth its fixed cost for.
template <class Fn>
struct isa_kernel {
    Fn fn;
    isa needs;
    std::size_t size;
};

/// The first row of a widest-first table that `level` allows and whose size is
/// at most `at_most`; null when there is none.
template <class Table>
auto first_allowed(const Table& table, isa level, std::size_t at_most = SIZE_MAX) noexcept
    -> decltype(&*std::begin(table)) {
    for (const auto& k : table)
        if (level >= k.needs && k.size <= at_most) return &k;
    return nullptr;
}

/// The last (narrowest) row that `level` allows and whose size is at least
/// `at_least`; null when there is none.
template <class Table>
auto narrowest_allowed(const Table& table, isa level, std::size_t at_least) noexcept -> decltype(&*std::begin(table)) {
    decltype(&*std::begin(table)) pick = nullptr;
    for (const auto& k : table)
        if (level >= k.needs && k.size >= at_least) pick = &k;
    return pick;
}

}  // namespace rdelta::detail
