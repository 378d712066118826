// block_records.cpp - hashing blocks in memory into signature records.
#include "block_records.hpp"

#include "checksum/strong_sum.hpp"
#include "checksum/weak_sum.hpp"
#include "core/parallel.hpp"
#include "format/netint.hpp"

#include <algorithm>
#include <cstring>

namespace rdelta::detail {

void hash_block_records(const sig_params& params, const std::uint8_t* p, std::size_t len, std::size_t count,
                        std::size_t per_slice, unsigned threads, std::vector<std::uint8_t>& digests,
                        std::uint8_t* out) {
    const sig_format format = params.format();
    const std::size_t rec = 4 + params.strong_len;
    const std::size_t slices = (count + per_slice - 1) / per_slice;
    if (digests.size() < count * digest_stride) digests.resize(count * digest_stride);
    parallel_for(slices, threads, [&](std::size_t s) {
        const std::size_t first = s * per_slice, n = std::min(per_slice, count - first);
        std::uint8_t* d = digests.data() + first * digest_stride;
        strong_sum_many(format.strong, p + first * len, len, n, d);
        std::uint8_t* r = out + first * rec;
        for (std::size_t i = 0; i < n; ++i, r += rec) {
            put_be(r, weak_sum_of(format.weak, p + (first + i) * len, len), 4);
            std::memcpy(r + 4, d + i * digest_stride, params.strong_len);
        }
    });
}

std::vector<std::uint8_t> zero_block_record(const sig_params& params) {
    const std::vector<std::uint8_t> zeros(params.block_len, 0);
    std::uint8_t digest[digest_stride];
    strong_sum(params.format().strong, zeros.data(), zeros.size(), digest);
    std::vector<std::uint8_t> record(4 + params.strong_len);
    put_be(record.data(), weak_sum_of(params.format().weak, zeros.data(), zeros.size()), 4);
    std::memcpy(record.data() + 4, digest, params.strong_len);
    return record;
}

}  // namespace rdelta::detail
