// block_records.cpp - hashing blocks in memory into signature records on all cores.
#include "block_records.hpp"

#include "checksum/strong_sum.hpp"
#include "core/parallel.hpp"
#include "format/signature_format.hpp"

#include <algorithm>

namespace rdelta::detail {

void hash_block_records(const sig_params& params, const std::uint8_t* p, std::size_t len, std::size_t per_slice,
                        unsigned threads, std::vector<std::uint8_t>& digests, std::uint8_t* out) {
    const std::size_t count = blocks_in(params, len), bl = params.block_len;
    const std::size_t rec = params.record_size();
    const std::size_t slices = (count + per_slice - 1) / per_slice;
    if (digests.size() < count * digest_stride) digests.resize(count * digest_stride);
    parallel_for(slices, threads, [&](std::size_t s) {
        const std::size_t first = s * per_slice;
        const std::size_t bytes = std::min(per_slice * bl, len - first * bl);
        hash_signature_records(params, p + first * bl, bytes, digests.data() + first * digest_stride,
                               out + first * rec);
    });
}

}  // namespace rdelta::detail
