// blake2b_kernels.hpp - multi-buffer BLAKE2b-256 kernels, one per ISA level.
//
// Each kernel hashes exactly N independent messages with BLAKE2b initialised
// for a 32-byte digest (outlen 32 in the parameter block; no key, salt or
// personalisation). The plain kernels have multi_buffer.hpp's lanes_kernel
// shape, the _var kernels its lanes_var_kernel shape.
//
// The kernels live in translation units compiled with ISA flags
// (blake2b_avx2.cpp: -mavx2 -mbmi2; blake2b_avx512.cpp: additionally
// -mavx512f -mavx512bw -mavx512vl). Call one only when detected_isa() reaches
// its level; blake2b256_many() in blake2b_many.hpp does that dispatch.
// This header is deliberately C-like (no STL, nothing inline) so that nothing
// it declares can be emitted as a weak, ISA-compiled symbol.
#pragma once

#include "multi_buffer.hpp"

#include <cstddef>
#include <cstdint>

namespace rdelta::detail {

/// Four messages in the four 64-bit lanes of ymm registers. Needs AVX2 + BMI2.
lanes_kernel blake2b256_x4_avx2;

/// Eight messages in the eight 64-bit lanes of zmm registers. Needs AVX-512 F+BW+VL.
lanes_kernel blake2b256_x8_avx512;

/// Sixteen messages, two zmm registers per word. Needs AVX-512 F+BW+VL.
lanes_kernel blake2b256_x16_avx512;

/// Sixteen messages of one length hashed piece by piece: bytes [done, done + len)
/// of each, continuing `state` (opaque; set up when done is 0). With out null
/// the piece is whole 128-byte blocks and the messages go on (len a multiple of
/// 128); else it ends them and digest i goes to out + i * out_stride. Needs
/// AVX-512 F+BW+VL.
void blake2b256_x16_part_avx512(std::uint64_t state[128], const std::uint8_t* const msgs[16], std::size_t done,
                                std::size_t len, std::uint8_t* out, std::size_t out_stride) noexcept;

/// Four messages of lens[i] bytes each. Needs AVX2 + BMI2.
lanes_var_kernel blake2b256_x4_var_avx2;

/// Eight messages of lens[i] bytes each. Needs AVX-512 F+BW+VL.
lanes_var_kernel blake2b256_x8_var_avx512;

}  // namespace rdelta::detail
