// x86_intrinsics.hpp - <immintrin.h> for the x86 kernels' translation units, the
// one place that includes it.
//
// GCC 12's AVX-512 intrinsics (Debian 12's compiler) seed results with a
// self-initialised _mm512_undefined_epi32(), which -W(maybe-)uninitialized
// reports once inlined, located in the compiler's own header (GCC PR105593).
// The warnings are silenced around the include only, so they stay on for the
// kernels' own code.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <immintrin.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
