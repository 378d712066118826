// cpu_features.hpp - which SIMD level this CPU runs, detected once, overridable.
//
// Kernels are chosen by level at run time; the library itself is built for the
// baseline x86-64 CPU. RDELTA_FORCE_ISA=scalar|sse2|avx2|avx512 (environment) or
// force_isa() (tests) caps the level, so every path can run on one machine.
#pragma once

namespace rdelta::detail {

/// SIMD levels in increasing order; each includes the ones before it.
enum class isa : int {
    scalar = 0,
    sse2 = 1,    ///< SSE2 (every x86-64)
    avx2 = 2,    ///< AVX2 + BMI2 with OS support for ymm state
    avx512 = 3,  ///< AVX-512 F+BW+VL with OS support for zmm state
};

/// The highest level the CPU and OS support (ignores overrides).
isa detected_isa() noexcept;

/// The level kernels use: detected_isa(), capped by RDELTA_FORCE_ISA and force_isa().
isa active_isa() noexcept;

/// Cap the active level (tests and benchmarks); a level above detected_isa() is
/// lowered to it. Not thread-safe against concurrent kernel selection.
void force_isa(isa level) noexcept;

/// Undo force_isa().
void reset_forced_isa() noexcept;

/// "scalar", "sse2", "avx2" or "avx512".
const char* isa_name(isa level) noexcept;

}  // namespace rdelta::detail
