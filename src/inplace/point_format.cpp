// point_format.cpp - encoding and checking a restore point's footer.
#include "point_format.hpp"

#include "format/netint.hpp"

#include <xxhash.h>

#include <algorithm>

namespace rdelta::detail {

namespace {

constexpr std::size_t checksum_at = point_footer_size - 8;

void put_root(std::uint8_t* out, const std::array<std::uint8_t, 16>& r) {
    std::copy(r.begin(), r.end(), out);
}
void get_root(const std::uint8_t* in, std::array<std::uint8_t, 16>& r) {
    std::copy_n(in, 16, r.begin());
}

}  // namespace

void encode_footer(const point_footer& f, std::uint64_t nonce, std::uint8_t out[point_footer_size]) {
    std::fill_n(out, point_footer_size, 0);
    put_be(out, point_magic, 4);
    put_be(out + 4, point_version, 4);
    put_be(out + 8, static_cast<std::uint64_t>(f.time_s), 8);
    put_be(out + 16, static_cast<std::uint64_t>(f.time_ns), 8);
    put_be(out + 24, static_cast<std::uint64_t>(f.kept_s), 8);
    put_be(out + 32, f.old_size, 8);
    put_be(out + 40, f.new_size, 8);
    put_be(out + 48, f.chunk_size, 4);
    put_root(out + 56, f.old_root);
    put_root(out + 72, f.new_root);
    put_root(out + 88, f.delta);
    put_be(out + 104, f.records_end, 8);
    put_be(out + 112, f.record_count, 8);
    put_be(out + checksum_at, XXH3_64bits_withSeed(out, checksum_at, nonce), 8);
}

bool decode_footer(const std::uint8_t in[point_footer_size], std::uint64_t nonce, point_footer& f) {
    if (get_be32(in) != point_magic || get_be32(in + 4) != point_version) return false;
    if (get_be(in + checksum_at, 8) != XXH3_64bits_withSeed(in, checksum_at, nonce)) return false;
    f.time_s = static_cast<std::int64_t>(get_be(in + 8, 8));
    f.time_ns = static_cast<std::int64_t>(get_be(in + 16, 8));
    f.kept_s = static_cast<std::int64_t>(get_be(in + 24, 8));
    f.old_size = get_be(in + 32, 8);
    f.new_size = get_be(in + 40, 8);
    f.chunk_size = get_be32(in + 48);
    get_root(in + 56, f.old_root);
    get_root(in + 72, f.new_root);
    get_root(in + 88, f.delta);
    f.records_end = get_be(in + 104, 8);
    f.record_count = get_be(in + 112, 8);
    return f.chunk_size != 0;
}

}  // namespace rdelta::detail
