// guarded_region.hpp - memory with a PROT_NONE page right after it (and, if asked,
// right before it), for kernels that must not read past the ends of their input.
#pragma once

#include <doctest/doctest.h>

#include <sys/mman.h>
#include <unistd.h>
#include <cstddef>
#include <cstdint>

namespace rdelta::test {

/// Which ends of a guarded_region touch a PROT_NONE page.
enum class guarded_ends { after, before_and_after };

/// Whole pages of usable bytes from `base` to end(), end() touching a guard page.
struct guarded_region {
    std::uint8_t* base = nullptr;  // first usable byte
    std::size_t usable = 0, page = 0;

    explicit guarded_region(std::size_t min_usable, guarded_ends ends = guarded_ends::after) {
        page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        usable = (min_usable + page - 1) / page * page;
        void* p = mmap(nullptr, usable + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(p != MAP_FAILED);
        base = static_cast<std::uint8_t*>(p) + page;
        if (ends == guarded_ends::before_and_after) REQUIRE(mprotect(base - page, page, PROT_NONE) == 0);
        REQUIRE(mprotect(base + usable, page, PROT_NONE) == 0);
    }
    guarded_region(const guarded_region&) = delete;
    guarded_region& operator=(const guarded_region&) = delete;
    ~guarded_region() { munmap(base - page, usable + 2 * page); }

    std::uint8_t* end() const { return base + usable; }
};

}  // namespace rdelta::test
