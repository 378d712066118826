// test_signature_format.cpp - the signature header and records, against sums
// computed one block at a time.
#include "checksum/strong_sum.hpp"
#include "checksum/weak_sum.hpp"
#include "format/netint.hpp"
#include "format/signature_format.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

using namespace rdelta;
using namespace rdelta::detail;

TEST_CASE("the signature header is magic, block length and strong length, big-endian") {
    const sig_params p{static_cast<std::uint32_t>(magic::md4_sig), 0x0102'0304, 8};
    const auto h = signature_header(p);
    const std::uint8_t expected[] = {0x72, 0x73, 0x01, 0x36, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 8};
    CHECK(std::memcmp(h.data(), expected, sizeof expected) == 0);
    CHECK(p.record_size() == 12);
}

TEST_CASE("records of blocks in memory match sums taken one block at a time") {
    std::mt19937 rng(7);
    for (const auto m : {magic::md4_sig, magic::blake2_sig, magic::rk_md4_sig, magic::rk_blake2_sig}) {
        for (const std::uint32_t strong_len : {1u, 8u, 16u}) {
            const sig_params p{static_cast<std::uint32_t>(m), 100, strong_len};
            for (const std::size_t len : {std::size_t{0}, std::size_t{100}, std::size_t{1750}, std::size_t{1799}}) {
                CAPTURE(len);
                std::vector<std::uint8_t> data(len);
                for (auto& b : data) b = static_cast<std::uint8_t>(rng());
                const std::size_t blocks = (len + 99) / 100;
                std::vector<std::uint8_t> digests(blocks * digest_stride), records(blocks * p.record_size());
                hash_signature_records(p, data.data(), len, digests.data(), records.data());
                for (std::size_t i = 0; i < blocks; ++i) {
                    const std::size_t n = std::min<std::size_t>(100, len - i * 100);
                    std::uint8_t digest[digest_stride];
                    strong_sum(p.format().strong, data.data() + i * 100, n, digest);
                    const std::uint8_t* r = records.data() + i * p.record_size();
                    CHECK(get_be32(r) == weak_sum_of(p.format().weak, data.data() + i * 100, n));
                    CHECK(std::memcmp(r + 4, digest, strong_len) == 0);
                }
            }
        }
    }
}

TEST_CASE("a hole's record is an all-zero block's") {
    const sig_params p{static_cast<std::uint32_t>(magic::rk_blake2_sig), 4096, 32};
    const std::vector<std::uint8_t> zeros(4096, 0);
    std::vector<std::uint8_t> digests(digest_stride), record(p.record_size());
    hash_signature_records(p, zeros.data(), zeros.size(), digests.data(), record.data());
    CHECK(zero_block_record(p) == record);
}
