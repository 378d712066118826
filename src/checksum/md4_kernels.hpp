// md4_kernels.hpp - MD4 (RFC 1320) kernels: one scalar, multi-buffer SIMD ones
// (three for x86-64, one for aarch64).
//
// Internal to the library: callers go through md4_many()/md4_one() (md4_many.hpp),
// which pick a kernel by active_isa(). Each SIMD kernel lives in its own translation
// unit compiled with that ISA's -m flags, so this header stays C-like on purpose:
// declarations only, no inline code and no STL (HACKING.md, "SIMD kernels and dispatch").
//
// The multi-buffer kernels have multi_buffer.hpp's lanes_kernel shape (16-byte
// digests); the last partial block and the padding go through a stack buffer,
// which is how a lane reads nothing past its message.
#pragma once

#include "multi_buffer.hpp"

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

// Our own MD4: the multi-buffer kernels need a matching reference; OpenSSL's is behind a deprecated API.
void md4_scalar(const std::uint8_t* data, std::size_t len, std::uint8_t out[16]) noexcept;

/// One 64-byte block into the state {A, B, C, D}: the compression function the
/// scalar MD4 and the C API's streaming rs_mdfour_* share.
void md4_compress(std::uint32_t st[4], const std::uint8_t* block) noexcept;

/// 4 lanes of 32 bits in xmm registers; SSE2 is part of every x86-64 CPU.
lanes_kernel md4_x4_sse2;

/// 8 lanes in ymm registers; only when active_isa() >= isa::avx2.
lanes_kernel md4_x8_avx2;

/// 16 lanes in zmm registers (vprold, vpternlogd); only when active_isa() >= isa::avx512.
lanes_kernel md4_x16_avx512;

/// 4 lanes of 32 bits in NEON q registers; aarch64 builds only (NEON is baseline
/// there), when active_isa() == isa::neon.
lanes_kernel md4_x4_neon;

}  // namespace rdelta::detail
