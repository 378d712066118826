// signature_format.cpp - writing a signature's header and records.
#include "signature_format.hpp"

#include "checksum/strong_sum.hpp"
#include "checksum/weak_sum.hpp"
#include "netint.hpp"

#include <algorithm>
#include <cstring>

namespace rdelta::detail {

std::array<std::uint8_t, signature_header_size> signature_header(const sig_params& params) noexcept {
    std::array<std::uint8_t, signature_header_size> header{};
    put_be(header.data(), params.magic, 4);
    put_be(header.data() + 4, params.block_len, 4);
    put_be(header.data() + 8, params.strong_len, 4);
    return header;
}

void put_signature_record(std::uint8_t* out, std::uint32_t weak, const std::uint8_t* digest,
                          std::size_t strong_len) noexcept {
    put_be(out, weak, 4);
    std::memcpy(out + 4, digest, strong_len);
}

void hash_signature_records(const sig_params& params, const std::uint8_t* p, std::size_t len, std::uint8_t* digests,
                            std::uint8_t* out) noexcept {
    const sig_format format = params.format();
    const std::size_t bl = params.block_len, rec = params.record_size();
    const std::size_t full = len / bl, blocks = (len + bl - 1) / bl;
    strong_sum_many(format.strong, p, bl, full, digests);
    if (blocks > full) strong_sum(format.strong, p + full * bl, len - full * bl, digests + full * digest_stride);
    for (std::size_t i = 0; i < blocks; ++i) {
        const std::size_t block_bytes = std::min(bl, len - i * bl);
        put_signature_record(out + i * rec, weak_sum_of(format.weak, p + i * bl, block_bytes),
                             digests + i * digest_stride, params.strong_len);
    }
}

std::vector<std::uint8_t> zero_block_record(const sig_params& params) {
    const std::vector<std::uint8_t> zeros(params.block_len, 0);
    std::uint8_t digest[digest_stride];
    strong_sum(params.format().strong, zeros.data(), zeros.size(), digest);
    std::vector<std::uint8_t> record(params.record_size());
    put_signature_record(record.data(), weak_sum_of(params.format().weak, zeros.data(), zeros.size()), digest,
                         params.strong_len);
    return record;
}

}  // namespace rdelta::detail
