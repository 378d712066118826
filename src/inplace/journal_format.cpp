// journal_format.cpp - encoding and checking the journal's headers and records.
#include "journal_format.hpp"

#include "format/netint.hpp"

#include <xxhash.h>

#include <cstring>

namespace rdelta::detail {

void encode_header(const journal_header& h, std::uint8_t out[journal_header_size]) {
    std::memset(out, 0, journal_header_size);
    put_be(out, journal_magic, 4);
    put_be(out + 4, journal_version, 4);
    put_be(out + 8, h.seq, 8);
    put_be(out + 16, h.state, 4);
    put_be(out + 20, h.flags, 4);
    put_be(out + 24, h.nonce, 8);
    put_be(out + 32, h.dev, 8);
    put_be(out + 40, h.ino, 8);
    put_be(out + 48, h.old_size, 8);
    put_be(out + 56, h.new_size, 8);
    put_be(out + 64, h.records_end, 8);
    put_be(out + 72, h.record_count, 8);
    put_be(out + 80, XXH3_64bits(out, 80), 8);
}

bool decode_header(const std::uint8_t in[journal_header_size], journal_header& h) {
    if (get_be32(in) != journal_magic || get_be32(in + 4) != journal_version) return false;
    if (get_be(in + 80, 8) != XXH3_64bits(in, 80)) return false;
    h.seq = get_be(in + 8, 8);
    h.state = get_be32(in + 16);
    h.flags = get_be32(in + 20);
    h.nonce = get_be(in + 24, 8);
    h.dev = get_be(in + 32, 8);
    h.ino = get_be(in + 40, 8);
    h.old_size = get_be(in + 48, 8);
    h.new_size = get_be(in + 56, 8);
    h.records_end = get_be(in + 64, 8);
    h.record_count = get_be(in + 72, 8);
    return h.state == journal_hot || h.state == journal_committed;
}

std::uint64_t record_checksum(std::uint64_t nonce, const std::uint8_t head[32], std::span<const std::uint8_t> data) {
    XXH3_state_t* s = XXH3_createState();
    XXH3_64bits_reset_withSeed(s, nonce);
    XXH3_64bits_update(s, head, 32);
    if (!data.empty()) XXH3_64bits_update(s, data.data(), data.size());
    const std::uint64_t sum = XXH3_64bits_digest(s);
    XXH3_freeState(s);
    return sum;
}

}  // namespace rdelta::detail
