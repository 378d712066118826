// fuzz_kernels_differential.cpp - every kernel at every ISA level equals the
// scalar reference on the same input.
//
// Input: data || parameters (from the end: alignment offset, block length, block
// count, rolling-window length). For each level from scalar up to the active one
// (force_isa; the first run prints which levels are covered):
//   * weak block sums (weak_block_sum.hpp, and weak_sum_of) equal the plain loops
//     rollsum_of / rabinkarp_of, and the rolling states (init, rotate, rollin,
//     rollout) agree with them window by window;
//   * strong_sum_many - the entry point of the multi-buffer MD4/BLAKE2b kernels -
//     equals strong_sum of each block, and both equal MD4 from OpenSSL and
//     BLAKE2b-256 from libb2 (independent of the library's own MD4);
//   * the window-skipping kernel of the level (AVX2, AVX-512: lane-parallel weak
//     sums and a vector prefilter test) stops at the same windows with the same
//     weak states as skip_rejected_scalar(), over the whole input, for both weak
//     sums, with a filter of fuzzer-chosen size and density.
// Inputs sit at the end of exactly sized, deliberately misaligned allocations
// and outputs fill exactly sized ones, so ASan catches any kernel over-read or
// over-write.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "fuzz_common.hpp"

#include "checksum/rabinkarp.hpp"
#include "checksum/rollsum.hpp"
#include "checksum/strong_sum.hpp"
#include "checksum/weak_block_sum.hpp"
#include "checksum/weak_sum.hpp"
#include "cpu/cpu_features.hpp"
#include "match/window_skip.hpp"
#include "match/window_skip_kernels.hpp"

#include <blake2.h>
#include <openssl/md4.h>

#include <vector>

namespace {

using namespace rdelta;
using namespace rdelta::fuzz;
namespace d = rdelta::detail;

void reference_digest(strong_kind kind, const std::uint8_t* p, std::size_t n, std::uint8_t* out) {
    static const std::uint8_t empty = 0;
    if (!p) p = &empty;  // the libraries want a pointer even for no bytes
    if (kind == strong_kind::md4)
        MD4(p, n, out);
    else
        blake2b(out, p, nullptr, 32, n, 0);
}

// The plain loops' values for one input, computed once (they do not depend on the
// ISA level) and compared at every level: the reference costs O(window) per
// position, so computing it once per input instead of once per level keeps the
// target fast.
struct weak_refs {
    std::uint32_t rk_all = 0, rs_all = 0;
    std::size_t n = 0;                          // bytes the rolling check covers
    std::vector<std::uint32_t> rk_rot, rs_rot;  // window at each position
    std::vector<std::uint32_t> rk_out, rs_out;  // after rolling out 1, 2, ... bytes
};

// Rolling: slide a window over the data, then shrink it from the front (as the
// tail of a delta does). Only the first 256 positions.
weak_refs reference_weak(const std::uint8_t* p, std::size_t n, std::size_t window) {
    weak_refs r;
    r.rk_all = d::rabinkarp_of(p, n), r.rs_all = d::rollsum_of(p, n);
    if (window == 0 || window > n) return r;
    r.n = std::min(n, window + 256);
    for (std::size_t pos = 0; pos + window <= r.n; ++pos) {
        r.rk_rot.push_back(d::rabinkarp_of(p + pos, window));
        r.rs_rot.push_back(d::rollsum_of(p + pos, window));
    }
    for (std::size_t pos = r.n - window + 1, len = window - 1;; ++pos, --len) {
        r.rk_out.push_back(d::rabinkarp_of(p + pos, len));
        r.rs_out.push_back(d::rollsum_of(p + pos, len));
        if (len == 0) break;
    }
    return r;
}

void check_weak(const std::uint8_t* p, std::size_t n, std::size_t window, const weak_refs& ref, const char* level) {
    const std::uint32_t rk_ref = ref.rk_all, rs_ref = ref.rs_all;
    FUZZ_CHECK(d::rabinkarp_block(p, n) == rk_ref, "[%s] rabinkarp_block(%zu bytes)", level, n);
    std::uint32_t s1 = 0, s2 = 0;
    d::rollsum_block(p, n, s1, s2);
    FUZZ_CHECK(((s2 << 16) | (s1 & 0xffff)) == rs_ref, "[%s] rollsum_block(%zu bytes)", level, n);
    FUZZ_CHECK(d::weak_sum_of(weak_kind::rabinkarp, p, n) == rk_ref, "[%s] weak_sum_of rabinkarp", level);
    FUZZ_CHECK(d::weak_sum_of(weak_kind::rollsum, p, n) == rs_ref, "[%s] weak_sum_of rollsum", level);

    if (window == 0 || window > n) return;
    n = ref.n;
    d::rabinkarp rk;
    d::rollsum rs;
    rk.init(p, window);
    rs.init(p, window);
    for (std::size_t pos = 0;; ++pos) {
        FUZZ_CHECK(rk.digest() == ref.rk_rot[pos], "[%s] rabinkarp rotate at %zu", level, pos);
        FUZZ_CHECK(rs.digest() == ref.rs_rot[pos], "[%s] rollsum rotate at %zu", level, pos);
        if (pos + window == n) break;
        rk.rotate(p[pos], p[pos + window]);
        rs.rotate(p[pos], p[pos + window]);
    }
    std::size_t k = 0;
    for (std::size_t pos = n - window, len = window; len > 0; ++k) {
        rk.rollout(p[pos]);
        rs.rollout(p[pos]);
        ++pos, --len;
        FUZZ_CHECK(rk.digest() == ref.rk_out[k], "[%s] rabinkarp rollout to %zu bytes", level, len);
        FUZZ_CHECK(rs.digest() == ref.rs_out[k], "[%s] rollsum rollout to %zu bytes", level, len);
    }
    d::rabinkarp rk_in;
    d::rollsum rs_in;
    for (std::size_t i = 0; i < window; ++i) rk_in.rollin(p[i]), rs_in.rollin(p[i]);
    FUZZ_CHECK(rk_in.digest() == ref.rk_rot[0], "[%s] rabinkarp rollin", level);
    FUZZ_CHECK(rs_in.digest() == ref.rs_rot[0], "[%s] rollsum rollin", level);
}

// OpenSSL / libb2 digests of each block (32 bytes apart), computed once per input.
std::vector<std::uint8_t> reference_strong(strong_kind kind, const std::uint8_t* p, std::size_t block_len,
                                           std::size_t count) {
    std::vector<std::uint8_t> refs(count * 32);
    for (std::size_t i = 0; i < count; ++i)
        reference_digest(kind, p ? p + i * block_len : nullptr, block_len, &refs[i * 32]);
    return refs;
}

void check_strong(strong_kind kind, const std::uint8_t* p, std::size_t block_len, std::size_t count,
                  const std::vector<std::uint8_t>& refs, const char* level) {
    const std::size_t dlen = max_strong_len(kind);
    exact_buffer many(count * d::digest_stride);
    d::strong_sum_many(kind, p, block_len, count, many.data());
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint8_t* block = p ? p + i * block_len : nullptr;
        std::uint8_t one[32];
        const std::uint8_t* ref = &refs[i * 32];
        d::strong_sum(kind, block, block_len, one);
        const char* name = kind == strong_kind::md4 ? "md4" : "blake2b";
        FUZZ_CHECK(std::memcmp(one, ref, dlen) == 0,
                   "[%s] strong_sum %s of a %zu-byte block differs from the reference", level, name, block_len);
        FUZZ_CHECK(std::memcmp(many.data() + i * d::digest_stride, ref, dlen) == 0,
                   "[%s] strong_sum_many %s: digest %zu of %zu (%zu-byte blocks) differs", level, name, i, count,
                   block_len);
    }
}

// A filter of 2^log2 words with about `percent`% of its bits set.
std::vector<std::uint64_t> skip_filter(unsigned log2, unsigned percent, std::uint64_t seed) {
    std::vector<std::uint64_t> words(std::size_t{1} << log2);
    std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (std::uint64_t& w : words)
        for (int b = 0; b < 64; ++b) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (x % 100 < percent) w |= std::uint64_t{1} << b;
        }
    return words;
}

// From window 0 to the last one, each kernel call against the reference; after a
// stop at a passing window, on from that window.
template <class State, class Kernel>
void check_skip_one(const std::uint8_t* p, std::size_t window, std::size_t limit, d::prefilter_view f,
                    std::size_t lanes, Kernel kernel, const char* what, const char* level) {
    State w;
    w.init(p, window);
    for (std::size_t pos = 0, calls = 0; pos < limit && calls < 200; ++calls) {
        State ref = w, got = w;
        const std::size_t want = d::skip_rejected_scalar(f, p, pos, limit, lanes, ref);
        const std::size_t at = kernel(got, pos);
        FUZZ_CHECK(at == want, "[%s] %s skip from %zu (window %zu, limit %zu): %zu, reference %zu", level, what, pos,
                   window, limit, at, want);
        FUZZ_CHECK(got.digest() == ref.digest(), "[%s] %s skip from %zu: state differs at %zu", level, what, pos, at);
        if (limit - at <= lanes) break;  // not a whole group left: the kernel stopped there
        w = ref;                         // a passing window: on from it
        pos = at;
    }
}

void check_skip(const std::uint8_t* p, std::size_t n, std::size_t window, const std::vector<std::uint64_t>& words,
                unsigned log2, d::isa level, const char* name) {
    if ((level != d::isa::avx2 && level != d::isa::avx512) || window == 0 || window >= n) return;
    const d::prefilter_view f{words.data(), 32 - log2};
    const std::size_t limit = n - window;  // the last window's successor reads p[n - 1]
    const bool wide = level >= d::isa::avx512;
    const std::size_t lanes = wide ? d::skip_lanes_avx512 : d::skip_lanes_avx2;
    const auto rk = wide ? d::rabinkarp_skip_avx512 : d::rabinkarp_skip_avx2;
    const auto rs = wide ? d::rollsum_skip_avx512 : d::rollsum_skip_avx2;
    check_skip_one<d::rabinkarp>(
        p, window, limit, f, lanes,
        [&](d::rabinkarp& w, std::size_t pos) { return rk(f, p, pos, limit, w.count, w.mult_pow, &w.hash); },
        "rabinkarp", name);
    check_skip_one<d::rollsum>(
        p, window, limit, f, lanes,
        [&](d::rollsum& w, std::size_t pos) { return rs(f, p, pos, limit, w.count, &w.s1, &w.s2); }, "rollsum", name);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    d::reset_forced_isa();
    std::fprintf(stderr, "kernels_differential: ISA levels scalar..%s (detected %s)\n", d::isa_name(d::active_isa()),
                 d::isa_name(d::detected_isa()));
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    data_producer p(data, size);
    const std::size_t offset = p.value<std::size_t>(0, 63);
    // Lengths around the MD4 (64) and BLAKE2b (128) block sizes are the interesting ones.
    static constexpr std::size_t special[] = {0, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 255, 256, 1024, 4096};
    const std::size_t block_len = p.boolean() ? p.pick(special) : p.value<std::size_t>(0, 300);
    const std::size_t want_count = p.value<std::size_t>(0, 40);
    const std::size_t window = p.value<std::size_t>(0, 300);
    const unsigned filter_log2 = p.value<unsigned>(1, 12);
    const unsigned filter_percent = p.value<unsigned>(0, 100);
    const auto payload = p.rest();
    const std::size_t count = block_len ? std::min(want_count, payload.size() / block_len) : want_count;
    // The references, once for every level, from the input itself.
    const weak_refs weak_ref = reference_weak(payload.data(), payload.size(), window);
    const auto md4_ref = reference_strong(strong_kind::md4, payload.data(), block_len, count);
    const auto blake2_ref = reference_strong(strong_kind::blake2, payload.data(), block_len, count);
    exact_buffer blocks(payload.first(block_len * count), offset);
    exact_buffer all(payload, offset);
    const auto filter = skip_filter(filter_log2, filter_percent, payload.size());

    d::reset_forced_isa();
    const d::isa top = d::active_isa();
    for (const d::isa level : d::isa_ladder()) {
        if (level > top) break;
        d::force_isa(level);
        FUZZ_CHECK(d::active_isa() == level, "force_isa(%s) gave level %s", d::isa_name(level),
                   d::isa_name(d::active_isa()));
        const char* name = d::isa_name(level);
        check_weak(all.data(), all.size(), window, weak_ref, name);
        check_strong(strong_kind::md4, blocks.data(), block_len, count, md4_ref, name);
        check_strong(strong_kind::blake2, blocks.data(), block_len, count, blake2_ref, name);
        check_skip(all.data(), all.size(), window, filter, filter_log2, level, name);
    }
    d::reset_forced_isa();
    return 0;
}
