// block_records.hpp - the records of whole blocks held in memory, hashed on
// several cores: what the signature job and the signature made beside a delta
// (signature_tap.hpp) share.
#pragma once

#include <rdelta/signature.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rdelta::detail {

/// Write the records (weak sum, then the strong sum cut to params.strong_len) of
/// `count` blocks of `len` bytes at `p` to `out` (count * (4 + strong_len) bytes).
/// Slices of `per_slice` blocks are hashed on up to `threads` cores with the
/// multi-buffer kernels; `digests` is scratch space kept between calls.
void hash_block_records(const sig_params& params, const std::uint8_t* p, std::size_t len, std::size_t count,
                        std::size_t per_slice, unsigned threads, std::vector<std::uint8_t>& digests, std::uint8_t* out);

/// The record of one all-zero full block: what every block of a hole gets.
std::vector<std::uint8_t> zero_block_record(const sig_params& params);

}  // namespace rdelta::detail
