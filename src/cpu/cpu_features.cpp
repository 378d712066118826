// cpu_features.cpp - CPUID and XGETBV, read once; on aarch64, NEON is baseline.
#include "cpu_features.hpp"

#include <rdelta/version.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>

#if (defined(__x86_64__) || defined(__i386__)) && !defined(RDELTA_NO_SIMD)
#include <cpuid.h>
#define RDELTA_X86 1
#endif
#if defined(__aarch64__) && defined(__ARM_NEON) && !defined(RDELTA_NO_SIMD)
#define RDELTA_NEON 1
#endif

namespace rdelta::detail {

namespace {

// The ladder of the family the build targets (the dispatch tables list the
// kernels of the same family), whether or not its SIMD units are built.
#if defined(__x86_64__) || defined(__i386__)
constexpr isa ladder[] = {isa::scalar, isa::sse2, isa::avx2, isa::avx512};
#elif defined(__aarch64__)
constexpr isa ladder[] = {isa::scalar, isa::neon};
#else
constexpr isa ladder[] = {isa::scalar};
#endif

bool on_ladder(isa level) noexcept {
    for (isa l : ladder)
        if (l == level) return true;
    return false;
}

// `limit` caps `level`; a limit from another family's ladder leaves scalar.
isa capped(isa level, isa limit) noexcept {
    if (!on_ladder(limit)) return isa::scalar;
    return limit < level ? limit : level;
}

#ifdef RDELTA_X86
unsigned long long xgetbv0() {
    unsigned eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return (static_cast<unsigned long long>(edx) << 32) | eax;
}
#endif

isa detect() noexcept {
#ifdef RDELTA_X86
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return isa::scalar;
    const bool osxsave = c & (1u << 27), avx = c & (1u << 28);
    if (!osxsave || !avx) return isa::sse2;
    const unsigned long long xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6) return isa::sse2;  // xmm and ymm state
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return isa::sse2;
    const bool avx2 = b & (1u << 5), bmi2 = b & (1u << 8);
    if (!avx2 || !bmi2) return isa::sse2;
    const bool avx512f = b & (1u << 16), avx512bw = b & (1u << 30), avx512vl = b & (1u << 31);
    if (avx512f && avx512bw && avx512vl && (xcr0 & 0xe6) == 0xe6) return isa::avx512;
    return isa::avx2;
#elif defined(RDELTA_NEON)
    return isa::neon;  // Advanced SIMD is part of every AArch64 CPU (the ABI's baseline)
#else
    return isa::scalar;
#endif
}

isa from_env(isa detected) noexcept {
    const char* forced = std::getenv("RDELTA_FORCE_ISA");
    const auto level = forced ? isa_from_name(forced) : std::nullopt;
    return level ? capped(detected, *level) : detected;  // unknown: the CLI refuses it (preflight.cpp)
}

std::atomic<int> forced{-1};

}  // namespace

std::span<const isa> isa_ladder() noexcept {
    return ladder;
}

isa detected_isa() noexcept {
    static const isa level = detect();
    return level;
}

isa active_isa() noexcept {
    static const isa from_environment = from_env(detected_isa());
    const int f = forced.load(std::memory_order_relaxed);
    if (f >= 0 && f < static_cast<int>(from_environment)) return static_cast<isa>(f);
    return from_environment;
}

void force_isa(isa level) noexcept {
    const isa kept = on_ladder(level) ? level : isa::scalar;
    forced.store(static_cast<int>(kept), std::memory_order_relaxed);
}

void reset_forced_isa() noexcept {
    forced.store(-1, std::memory_order_relaxed);
}

const char* isa_name(isa level) noexcept {
    switch (level) {
        case isa::scalar: return "scalar";
        case isa::sse2: return "sse2";
        case isa::avx2: return "avx2";
        case isa::avx512: return "avx512";
        case isa::neon: return "neon";
    }
    return "scalar";
}

std::optional<isa> isa_from_name(const char* name) noexcept {
    for (isa level : {isa::scalar, isa::sse2, isa::avx2, isa::avx512, isa::neon})
        if (std::strcmp(name, isa_name(level)) == 0) return level;
    return std::nullopt;
}

}  // namespace rdelta::detail

namespace rdelta {

const char* simd_level() noexcept {
    return detail::isa_name(detail::active_isa());
}

}  // namespace rdelta
