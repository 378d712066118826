// block_records.hpp - signature records of blocks in memory, hashed on several
// cores: what the signature job and the signature made beside a delta
// (signature_tap.hpp) share. The records' layout is format/signature_format.hpp's.
#pragma once

#include <rdelta/signature.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rdelta::detail {

/// Blocks of p[0, len) (of params.block_len bytes, the last one shorter when len
/// is not a multiple) into records at out. Slices of `per_slice` blocks are
/// hashed on up to `threads` cores; `digests` is scratch space kept between calls.
void hash_block_records(const sig_params& params, const std::uint8_t* p, std::size_t len, std::size_t per_slice,
                        unsigned threads, std::vector<std::uint8_t>& digests, std::uint8_t* out);

/// How many blocks, hence records, len bytes make.
inline std::size_t blocks_in(const sig_params& params, std::size_t len) noexcept {
    return (len + params.block_len - 1) / params.block_len;
}

}  // namespace rdelta::detail
