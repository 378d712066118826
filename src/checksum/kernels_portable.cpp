// kernels_portable.cpp - the kernels' entry points for builds without SIMD units
// (other CPUs, or -Dsimd=disabled): each runs the scalar reference per message.
// The dispatch tables list the NEON kernels on aarch64 and the x86 ones elsewhere;
// these stand in for whichever of them the tables name. active_isa() is scalar in
// such builds, so dispatch never picks them; they exist so that the dispatch
// tables and the kernel tests link and pass on any CPU.
#include "blake2b_kernels.hpp"
#include "blake2b_many.hpp"
#include "md4_kernels.hpp"
#include "weak_block_sum.hpp"
#include "weak_kernels.hpp"

#include <cstdlib>

namespace rdelta::detail {

namespace {

template <int Lanes, typename Hash>
void each(const std::uint8_t* const msgs[], std::size_t len, std::uint8_t* out, std::size_t stride,
          Hash hash) noexcept {
    for (int i = 0; i < Lanes; ++i) hash(msgs[i], len, out + static_cast<std::size_t>(i) * stride);
}

template <int Lanes>
void each_var(const std::uint8_t* const msgs[], const std::size_t lens[], std::uint8_t* out,
              std::size_t stride) noexcept {
    for (int i = 0; i < Lanes; ++i) blake2b256_one(msgs[i], lens[i], out + static_cast<std::size_t>(i) * stride);
}

}  // namespace

#if defined(__aarch64__)

void md4_x4_neon(const std::uint8_t* const msgs[4], std::size_t len, std::uint8_t* out, std::size_t stride) noexcept {
    each<4>(msgs, len, out, stride, md4_scalar);
}
std::uint32_t rabinkarp_block_neon(const std::uint8_t* p, std::size_t n) noexcept {
    return rabinkarp_block(p, n);
}
void rollsum_block_neon(const std::uint8_t* p, std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept {
    rollsum_block(p, n, *s1, *s2);
}

#else

void md4_x4_sse2(const std::uint8_t* const msgs[4], std::size_t len, std::uint8_t* out, std::size_t stride) noexcept {
    each<4>(msgs, len, out, stride, md4_scalar);
}
void md4_x8_avx2(const std::uint8_t* const msgs[8], std::size_t len, std::uint8_t* out, std::size_t stride) noexcept {
    each<8>(msgs, len, out, stride, md4_scalar);
}
void md4_x16_avx512(const std::uint8_t* const msgs[16], std::size_t len, std::uint8_t* out,
                    std::size_t stride) noexcept {
    each<16>(msgs, len, out, stride, md4_scalar);
}
void blake2b256_x4_avx2(const std::uint8_t* const msgs[4], std::size_t len, std::uint8_t* out,
                        std::size_t stride) noexcept {
    each<4>(msgs, len, out, stride, blake2b256_one);
}
void blake2b256_x8_avx512(const std::uint8_t* const msgs[8], std::size_t len, std::uint8_t* out,
                          std::size_t stride) noexcept {
    each<8>(msgs, len, out, stride, blake2b256_one);
}
void blake2b256_x16_avx512(const std::uint8_t* const msgs[16], std::size_t len, std::uint8_t* out,
                           std::size_t stride) noexcept {
    each<16>(msgs, len, out, stride, blake2b256_one);
}
// blake2b256_parts hash with libb2 below AVX-512, so nothing calls this here.
void blake2b256_x16_part_avx512(std::uint64_t*, const std::uint8_t* const*, std::size_t, std::size_t, std::uint8_t*,
                                std::size_t) noexcept {
    std::abort();
}
void blake2b256_x4_var_avx2(const std::uint8_t* const msgs[4], const std::size_t lens[4], std::uint8_t* out,
                            std::size_t stride) noexcept {
    each_var<4>(msgs, lens, out, stride);
}
void blake2b256_x8_var_avx512(const std::uint8_t* const msgs[8], const std::size_t lens[8], std::uint8_t* out,
                              std::size_t stride) noexcept {
    each_var<8>(msgs, lens, out, stride);
}

std::uint32_t rabinkarp_block_sse2(const std::uint8_t* p, std::size_t n) noexcept {
    return rabinkarp_block(p, n);
}
std::uint32_t rabinkarp_block_avx2(const std::uint8_t* p, std::size_t n) noexcept {
    return rabinkarp_block(p, n);
}
std::uint32_t rabinkarp_block_avx512(const std::uint8_t* p, std::size_t n) noexcept {
    return rabinkarp_block(p, n);
}
void rollsum_block_sse2(const std::uint8_t* p, std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept {
    rollsum_block(p, n, *s1, *s2);
}
void rollsum_block_avx2(const std::uint8_t* p, std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept {
    rollsum_block(p, n, *s1, *s2);
}
void rollsum_block_avx512(const std::uint8_t* p, std::size_t n, std::uint32_t* s1, std::uint32_t* s2) noexcept {
    rollsum_block(p, n, *s1, *s2);
}

#endif

}  // namespace rdelta::detail
