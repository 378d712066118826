// cpu_features.hpp - which SIMD level this CPU runs, detected once, overridable.
//
// Kernels are chosen by level at run time; the library itself is built for the
// baseline CPU of its family. RDELTA_FORCE_ISA=scalar|sse2|avx2|avx512|neon
// (environment) or force_isa() (tests) caps the level, so every path can run on
// one machine.
#pragma once

#include <optional>
#include <span>

namespace rdelta::detail {

/// SIMD levels. Each CPU family has its own ladder, scalar first, each level
/// including the ones below it: x86-64 scalar < sse2 < avx2 < avx512; aarch64
/// scalar < neon. Levels compare (<, >=) only within one ladder; active_isa() and
/// detected_isa() only ever return a level of this build's ladder.
enum class isa : int {
    scalar = 0,
    sse2 = 1,    ///< SSE2 (every x86-64)
    avx2 = 2,    ///< AVX2 + BMI2 with OS support for ymm state
    avx512 = 3,  ///< AVX-512 F+BW+VL with OS support for zmm state
    neon = 4,    ///< AArch64 Advanced SIMD (every aarch64 CPU; no detection needed)
};

/// This build's ladder, lowest first: scalar sse2 avx2 avx512 on x86-64, scalar
/// neon on aarch64, scalar alone on other CPUs. A build without SIMD kernels
/// (-Dsimd=disabled) keeps its ladder but detects scalar.
std::span<const isa> isa_ladder() noexcept;

/// The highest level the CPU and OS support (ignores overrides).
isa detected_isa() noexcept;

/// The level kernels use: detected_isa(), capped by RDELTA_FORCE_ISA and force_isa().
/// A cap from another family's ladder (RDELTA_FORCE_ISA=neon on x86-64, avx2 on
/// aarch64) leaves only scalar.
isa active_isa() noexcept;

/// Cap the active level (tests and benchmarks); a level above detected_isa() is
/// lowered to it. Not thread-safe against concurrent kernel selection.
void force_isa(isa level) noexcept;

/// Undo force_isa().
void reset_forced_isa() noexcept;

/// "scalar", "sse2", "avx2", "avx512" or "neon".
const char* isa_name(isa level) noexcept;

/// The level named `name` (isa_name()'s spelling), or nullopt: RDELTA_FORCE_ISA's
/// one parser (the CLI refuses an unknown name with it before any kernel runs).
std::optional<isa> isa_from_name(const char* name) noexcept;

}  // namespace rdelta::detail
