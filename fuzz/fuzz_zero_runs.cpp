// fuzz_zero_runs.cpp - runs of zeros passed to the delta job unscanned (feed_zeros)
// against the same bytes scanned.
//
// Input: basis bytes || new-file data pieces || parameters (from the end: format,
// block length, strong length, in-place-safe, checksum, the size of the parts a
// zero run is fed in, zeros in the basis, then per segment: data length and zero
// run length).
// Check: the delta made with every zero run given to feed_zeros, in parts, is
// byte-identical to make_delta over the whole new file, for every format, with and
// without in-place-safe matching and the checksum trailer.
#include "fuzz_common.hpp"
#include "fuzz_data_producer.hpp"

#include "delta/delta_job.hpp"

#include <rdelta/rdelta.hpp>

namespace {

using namespace rdelta;
using namespace rdelta::fuzz;

struct segment {
    std::span<const std::uint8_t> data;
    std::size_t zeros;
};

void pump(job& j, const std::uint8_t* in, std::size_t n, bool eof, bytes& out) {
    std::uint8_t window[4096];
    buffers io{in, n, eof, window, sizeof window};
    for (int rounds = 0;; ++rounds) {
        FUZZ_CHECK(rounds < (1 << 20), "delta job does not finish");
        io.next_out = window, io.avail_out = sizeof window;
        auto st = j.iterate(io);
        FUZZ_CHECK(st.ok(), "delta job failed: %s", st.ok() ? "" : describe(st.err()).c_str());
        out.insert(out.end(), window, window + (sizeof window - io.avail_out));
        if (*st == job_status::done || (io.avail_in == 0 && io.avail_out > 0 && !eof)) return;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    data_producer p(data, size);
    static constexpr magic formats[] = {magic::md4_sig, magic::blake2_sig, magic::rk_md4_sig, magic::rk_blake2_sig};
    static constexpr std::uint32_t larger_blocks[] = {65, 256, 1000, 4096};
    static constexpr std::size_t parts[] = {1, 7, 4096, 40000, 65536 + 777, std::size_t{1} << 30};
    sig_params prm;
    prm.magic = static_cast<std::uint32_t>(p.pick(formats));
    prm.block_len = p.boolean() ? p.value<std::uint32_t>(1, 64) : p.pick(larger_blocks);
    prm.strong_len = p.value<std::uint32_t>(1, static_cast<std::uint32_t>(max_strong_len(prm.format().strong)));
    // In-place-safe scans hash every zero window past the basis' last zero block:
    // with long blocks that would make the reference scan too slow to fuzz.
    const bool safe = p.boolean() && prm.block_len <= 64, checksum = p.boolean();
    const std::size_t part = p.pick(parts);
    const std::size_t basis_zeros = p.value<std::size_t>(0, 3) * prm.block_len + p.value<std::size_t>(0, 3);
    std::vector<segment> segments(p.value<std::size_t>(1, 5));
    // Runs long enough for feed_zeros to skip windows (over 2 * (block + 32832) bytes)
    // cost 0.1-0.7 s to scan under ASan: they are kept for 1 input in 256 (one_in);
    // otherwise long runs are cut to 2048-2111 zeros.
    const bool long_runs = one_in(data, size, 256);
    for (auto& s : segments) {
        s.zeros = p.boolean() ? p.value<std::size_t>(0, 200) : p.value<std::size_t>(0, 150000);
        if (!long_runs && s.zeros > 2048) s.zeros = 2048 + s.zeros % 64;
    }
    for (auto& s : segments) s.data = p.sized_bytes(4096);
    // Blocks of 1-4 bytes: every position of the new file has candidates; at most
    // 1 KB of basis then.
    const auto rest = p.rest();
    const auto basis_part = rest.first(prm.block_len <= 4 ? std::min<std::size_t>(rest.size(), 1024) : rest.size());

    // The basis: its bytes with (maybe) some zeros in the middle.
    bytes basis(basis_part.begin(), basis_part.end());
    basis.insert(basis.begin() + static_cast<std::ptrdiff_t>(basis.size() / 2), basis_zeros, 0);
    bytes next;
    for (const auto& s : segments) {
        next.insert(next.end(), s.data.begin(), s.data.end());
        next.resize(next.size() + s.zeros, 0);
    }

    auto sig_bytes = make_signature(basis, prm);
    FUZZ_CHECK(sig_bytes.ok(), "make_signature failed");
    auto sig = load_signature(*sig_bytes);
    FUZZ_CHECK(sig.ok(), "load_signature failed");
    if (sig->block_count() == 0) return 0;  // slack deltas are not scanned
    FUZZ_CHECK(sig->build_index(safe).ok(), "build_index failed");
    const delta_options options{{1}, checksum, safe};
    auto scanned = make_delta(*sig, next, 0, options);
    FUZZ_CHECK(scanned.ok(), "make_delta failed");

    auto made = rdelta::detail::make_scanning_delta_job(*sig, options);
    FUZZ_CHECK(made.ok(), "make_scanning_delta_job failed");
    auto& j = *made;
    bytes fed;
    for (const auto& s : segments) {
        if (!s.data.empty()) pump(*j, s.data.data(), s.data.size(), false, fed);
        // At most 64 parts per run: each short part is scanned with the carried bytes.
        const std::size_t run_part = std::max(part, s.zeros / 64);
        for (std::size_t done = 0; done < s.zeros;) {
            const std::size_t n = std::min(run_part, s.zeros - done);
            j->feed_zeros(n);
            pump(*j, nullptr, 0, false, fed);
            done += n;
        }
    }
    pump(*j, nullptr, 0, true, fed);
    FUZZ_CHECK(same(fed, *scanned), "delta with zeros fed unscanned differs at byte %zu (%zu vs %zu bytes)",
               first_difference(fed, *scanned), fed.size(), scanned->size());
    return 0;
}
