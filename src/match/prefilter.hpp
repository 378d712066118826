// prefilter.hpp - the layout of block_index's prefilter, shared by may_contain()
// and the window-skipping kernels (window_skip_kernels.hpp).
//
// A blocked Bloom filter of 64-bit words. A key picks the word
// (key * prefilter_word_mult mod 2^32) >> shift and, with
// m = (key * prefilter_bit_mult mod 2^32) >> prefilter_bit_shift, needs the bits
// m & 63, (m >> 6) & 63, (m >> 12) & 63 and m >> 18 of it (four bits: at 64
// filter bits per key 0.017% of other keys pass, 0.044% with three). Two 32-bit products, so that
// the kernels compute 16 keys' worth in one multiply each; the word and the bits
// come from different products because keys that share a word share the top bits
// of its product (with one product, the bits of large filters repeat and twice as
// many misses pass). C-like on purpose (no inline code): per-ISA units include it.
#pragma once

#include <cstdint>

namespace rdelta::detail {

constexpr std::uint32_t prefilter_word_mult = 0x85ebca77u;
constexpr std::uint32_t prefilter_bit_mult = 0xc2b2ae3du;
constexpr unsigned prefilter_bit_shift = 8;  // the top 24 bits of the product: 4 bit numbers

/// The filter words and the shift that turns a key's product into a word index.
struct prefilter_view {
    const std::uint64_t* words;
    unsigned shift;
};

}  // namespace rdelta::detail
