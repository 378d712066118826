// signature_format.hpp - the signature file's layout in one place: a 12-byte
// header (magic, block length, strong sum length, each 4 bytes big-endian), then
// one record per block of the input (its weak sum, 4 bytes big-endian, then the
// leading strong_len bytes of its strong sum). Every writer of a signature and
// its loader go through here.
#pragma once

#include <rdelta/format.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rdelta::detail {

inline constexpr std::size_t signature_header_size = 12;

/// The header of a signature with these parameters.
std::array<std::uint8_t, signature_header_size> signature_header(const sig_params& params) noexcept;

/// Write one record at out: the weak sum, then strong_len bytes of `digest`.
void put_signature_record(std::uint8_t* out, std::uint32_t weak, const std::uint8_t* digest,
                          std::size_t strong_len) noexcept;

/// The records of the blocks of p[0, len) into out, one thread: blocks of
/// params.block_len, the last one shorter when len is not a multiple of it.
/// Full blocks go through the multi-buffer strong sum kernels; `digests` is
/// scratch space of digest_stride (strong_sum.hpp) bytes per block.
void hash_signature_records(const sig_params& params, const std::uint8_t* p, std::size_t len, std::uint8_t* digests,
                            std::uint8_t* out) noexcept;

/// The record of one all-zero full block: what every block of a hole gets.
std::vector<std::uint8_t> zero_block_record(const sig_params& params);

}  // namespace rdelta::detail
