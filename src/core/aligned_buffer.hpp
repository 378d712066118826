// aligned_buffer.hpp - byte buffers that start on a cache line, for the reads of
// files into them.
//
// The kernel copies what read() returns with `rep movsb`, which on AMD Zen 4 runs
// at about half speed when the destination is not 64-byte aligned, and malloc's
// large buffers start 16 bytes past a line (bench/README.md, "Measurements behind
// design choices"; the source's alignment made no difference). Writes are not
// affected: there the page cache is the aligned destination.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace rdelta::detail {

constexpr std::size_t read_alignment = 64;

struct free_bytes {
    void operator()(std::uint8_t* p) const noexcept { std::free(p); }
};
using aligned_bytes = std::unique_ptr<std::uint8_t[], free_bytes>;

/// `n` bytes (uninitialised) starting on a cache line; null when out of memory.
inline aligned_bytes make_aligned_bytes_nothrow(std::size_t n) noexcept {
    const std::size_t rounded = (n + read_alignment - 1) / read_alignment * read_alignment;
    if (rounded < n) return nullptr;
    return aligned_bytes(
        static_cast<std::uint8_t*>(std::aligned_alloc(read_alignment, rounded ? rounded : read_alignment)));
}

/// The same; throws std::bad_alloc when out of memory, like std::make_unique.
inline aligned_bytes make_aligned_bytes(std::size_t n) {
    auto p = make_aligned_bytes_nothrow(n);
    if (!p) throw std::bad_alloc();
    return p;
}

/// How much of a read of `n` bytes into `dst` to do first so that the rest lands
/// on a cache line: the bytes up to the next line when `dst` is not on one and the
/// read is long enough for the copy's speed to matter, else all `n`.
inline std::size_t read_head(const std::uint8_t* dst, std::size_t n) noexcept {
    const std::size_t off = reinterpret_cast<std::uintptr_t>(dst) % read_alignment;
    return off != 0 && n >= 4096 ? read_alignment - off : n;
}

}  // namespace rdelta::detail
