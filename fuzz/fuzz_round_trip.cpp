// fuzz_round_trip.cpp - basis and new file -> signature -> load -> delta -> patch.
//
// Input: basis || new-file payload || parameters (from the end: format, block
// length, strong length, threads, thread count for the direct parallel scan, how
// the new file is composed, large mode and its seed, basis length).
// Checks:
//   * signature, load and delta succeed; the signature has one record per block
//     and loads back to the same records; the delta is canonical and describes the
//     new file (delta_checker.hpp); the patch succeeds and has the new file's
//     length, and equals the new file when the strong sums are full length (with
//     truncated strong sums a false match is legitimate);
//   * threads change nothing: signatures with 1 and the chosen number of threads
//     are byte-identical, deltas with 1 and the chosen number (1 and 2 if that is
//     1; 1, 2 and the chosen number in large mode);
//   * the parallel segment scan (core/parallel_scan.hpp) gives make_delta's
//     commands even on tiny inputs, by calling it directly (the delta job uses it
//     only past 2 MiB per call); the direct sequential scan runs on a difference;
//   * large mode (1 input in 256 x 16, and 1 in 16 of the mutations of an input
//     that took it; see one_in in fuzz_common.hpp): a basis of 32-48 KiB and a new
//     file of 68-116 KiB are synthesised from the input, so signature hashing and
//     delta scanning really run on several cores through the public API. The
//     parallel grain (core/parallel.hpp) is 4 KiB here instead of 1 MiB, so these
//     sizes split as a 1 MiB basis and a 2 MiB new file do by default, at a tenth
//     of the cost (about 30 ms against 320 ms under ASan);
//   * a quarter of the inputs (a draw on the whole input) hash candidate windows
//     in batches, as the search does against signatures of huge files.
#include "delta_checker.hpp"
#include "match/index_access.hpp"
#include "test_hooks_on.hpp"

#include "core/output_queue.hpp"
#include "core/parallel.hpp"
#include "format/command_writer.hpp"
#include "match/block_index.hpp"
#include "match/parallel_scan.hpp"

#include <rdelta/rdelta.hpp>

namespace {

using namespace rdelta;
using namespace rdelta::fuzz;

bytes drain_all(rdelta::detail::output_queue& q) {
    bytes v(q.size());
    buffers io{nullptr, 0, false, v.data(), v.size()};
    q.drain(io);
    return v;
}

// Commands of the whole new file scanned in one range, sequentially or with the
// parallel segment scan: what one delta-job call over all of it produces.
template <weak_kind Kind>
bytes direct_scan(const signature& sig, std::span<const std::uint8_t> d, unsigned threads) {
    rdelta::detail::output_queue out;
    job_stats stats;
    rdelta::detail::command_writer writer(out, stats);
    const std::size_t bl = sig.params().block_len;
    const strong_kind strong = sig.params().format().strong;
    rdelta::detail::work_budget budget;  // unlimited
    rdelta::detail::matcher<Kind> m(*rdelta::detail::index_access::of(sig), bl, strong, writer, stats, budget);
    writer.magic(static_cast<std::uint32_t>(magic::delta));
    if (threads > 1 && d.size() > bl)
        rdelta::detail::scan_parallel(m, *rdelta::detail::index_access::of(sig), bl, strong, d.data(), d.size(),
                                      threads, stats, budget);
    else
        m.scan_full(d.data(), d.size());
    m.scan_tail(d.data(), d.size());
    m.flush();
    writer.end();
    return drain_all(out);
}

void check_parallel_scan(const signature& sig, std::span<const std::uint8_t> new_file, unsigned threads,
                         std::span<const std::uint8_t> delta) {
    if (sig.block_count() == 0) return;
    const bool rs = sig.params().format().weak == weak_kind::rollsum;
    const bytes par = rs ? direct_scan<weak_kind::rollsum>(sig, new_file, threads)
                         : direct_scan<weak_kind::rabinkarp>(sig, new_file, threads);
    if (same(par, delta)) return;
    // Only on a difference, the direct sequential scan: is it the parallel scan, or
    // does the direct scan not reproduce make_delta?
    const bytes seq =
        rs ? direct_scan<weak_kind::rollsum>(sig, new_file, 1) : direct_scan<weak_kind::rabinkarp>(sig, new_file, 1);
    FUZZ_CHECK(same(seq, delta), "direct sequential scan differs from make_delta at %zu", first_difference(seq, delta));
    FUZZ_CHECK(same(par, seq), "parallel scan with %u segments differs from sequential at byte %zu (%zu vs %zu bytes)",
               threads, first_difference(par, seq), par.size(), seq.size());
}

bytes signature_of(std::span<const std::uint8_t> basis, const sig_params& prm, unsigned threads) {
    auto sig = make_signature(basis, prm, job_options{threads});
    FUZZ_CHECK(sig.ok(), "make_signature failed: %s", sig.ok() ? "" : describe(sig.err()).c_str());
    return std::move(sig).value();
}

bytes delta_of(const signature& sig, std::span<const std::uint8_t> new_file, unsigned threads) {
    // librsync's bytes (no checksum trailer): check_delta_against wants nothing after END.
    auto delta = make_delta(sig, new_file, 0, delta_options{{threads}, false});
    FUZZ_CHECK(delta.ok(), "make_delta failed: %s", delta.ok() ? "" : describe(delta.err()).c_str());
    return std::move(delta).value();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    rdelta::detail::parallel_grain = 4096;
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    data_producer p(data, size);
    // A quarter of the inputs batch candidate windows as a huge signature's search
    // does (only a basis of gigabytes has weak hits that miss in random data); the
    // draw reads no byte, so the corpus's inputs keep their meaning.
    rdelta::detail::test_hooks::request_gather(one_in(data, size, 4, 0x6761));
    static constexpr magic formats[] = {magic::md4_sig, magic::blake2_sig, magic::rk_md4_sig, magic::rk_blake2_sig};
    static constexpr std::uint32_t larger_blocks[] = {65, 128, 255, 256, 1000, 2048, 4096, 65536};
    static constexpr std::uint32_t large_mode_blocks[] = {16, 64, 256, 700, 2048};
    sig_params prm;
    prm.magic = static_cast<std::uint32_t>(p.pick(formats));
    const std::size_t full = max_strong_len(prm.format().strong);
    prm.block_len = p.boolean() ? p.value<std::uint32_t>(1, 64) : p.pick(larger_blocks);
    prm.strong_len = p.value<std::uint32_t>(1, static_cast<std::uint32_t>(full));
    const unsigned threads = fuzz_threads(p.value<unsigned>(1, 3));
    const unsigned scan_threads = p.value<unsigned>(2, 5);  // direct scan: not capped
    const unsigned compose = p.value<unsigned>(0, 3);
    // Large mode costs about 30 ms under ASan: its parameter (not 0, so short
    // inputs stay fast) and a 1-in-16 draw on the whole input.
    const bool large = p.value<unsigned>(0, 255) == 0xa5 && one_in(data, size, 16);
    xorshift rng{p.integral(0, UINT32_MAX) * 0x9e3779b97f4a7c15ull + 1};
    const std::size_t basis_len = p.value<std::size_t>(0, 8192);
    const auto basis_part = p.bytes(basis_len);
    const auto payload = p.rest();

    bytes basis_v(basis_part.begin(), basis_part.end()), new_v;
    if (large) {
        prm.block_len = large_mode_blocks[rng.below(5)];
        // Pieces a sixteenth of the default's, for as many joins per file as at 2 MiB.
        basis_v = synth_basis(basis_part, (std::size_t{32} << 10) + rng.below(16 << 10), rng, 1250);
        new_v =
            synth_new(basis_v, payload, prm.block_len, (std::size_t{64} << 10) + 4096 + rng.below(48 << 10), rng, 4096);
    } else {
        const std::size_t mid = basis_part.size() / 2;
        if (compose == 1 || compose == 3) new_v.insert(new_v.end(), basis_part.begin() + mid, basis_part.end());
        if (compose == 2) new_v.insert(new_v.end(), basis_part.begin(), basis_part.end());
        new_v.insert(new_v.end(), payload.begin(), payload.end());
        if (compose == 3) new_v.insert(new_v.end(), basis_part.begin(), basis_part.begin() + mid);
        if (compose == 1) new_v.insert(new_v.end(), basis_part.begin(), basis_part.end());
    }
    // Blocks of 1-4 bytes match almost everywhere (a strong sum per position):
    // at most 1 KB of basis and of new file then, so such inputs stay fast.
    if (prm.block_len <= 4 && !large)
        basis_v.resize(std::min<std::size_t>(basis_v.size(), 1024)),
            new_v.resize(std::min<std::size_t>(new_v.size(), 1024));
    exact_buffer basis(basis_v), new_file(new_v);

    const bytes sig_bytes = signature_of(basis.span(), prm, threads);
    if (threads != 1) {
        const bytes sig1 = signature_of(basis.span(), prm, 1);
        FUZZ_CHECK(same(sig1, sig_bytes), "signature with %u threads differs at %zu", threads,
                   first_difference(sig1, sig_bytes));
    }
    const std::size_t blocks = (basis.size() + prm.block_len - 1) / prm.block_len;
    FUZZ_CHECK(sig_bytes.size() == 12 + blocks * (4 + prm.strong_len), "signature of %zu bytes for %zu blocks",
               sig_bytes.size(), blocks);

    auto loaded = load_signature(sig_bytes);
    FUZZ_CHECK(loaded.ok(), "our signature does not load: %s", loaded.ok() ? "" : describe(loaded.err()).c_str());
    signature& sig = *loaded;
    FUZZ_CHECK(sig.block_count() == blocks && sig.params().magic == prm.magic &&
                   sig.params().block_len == prm.block_len && sig.params().strong_len == prm.strong_len,
               "loaded signature differs from the one made");
    if (auto built = sig.build_index(); !built) FUZZ_CHECK(false, "build_index: %s", describe(built.err()).c_str());

    const bytes delta = delta_of(sig, new_file.span(), threads);
    check_delta_against(sig, delta, new_file.span());
    // Every thread count against 1 (2 against the chosen count when that is 1); in
    // large mode, where the delta job really splits its input, 1, 2 and the chosen one.
    for (unsigned t : {1u, fuzz_threads(2)}) {
        if (t == threads || (!large && threads != 1 && t != 1)) continue;
        const bytes other = delta_of(sig, new_file.span(), t);
        FUZZ_CHECK(same(other, delta), "delta with %u threads differs from %u threads at %zu (%zu vs %zu bytes)", t,
                   threads, first_difference(other, delta), other.size(), delta.size());
    }
    if (!large) check_parallel_scan(sig, new_file.span(), scan_threads, delta);

    auto patched = apply_patch(basis.span(), delta);
    FUZZ_CHECK(patched.ok(), "our delta does not apply: %s", patched.ok() ? "" : describe(patched.err()).c_str());
    FUZZ_CHECK(patched->size() == new_file.size(), "patched %zu bytes, new file has %zu", patched->size(),
               new_file.size());
    if (prm.strong_len == full)
        FUZZ_CHECK(same(*patched, new_file.span()), "round trip differs at %zu with full strong sums",
                   first_difference(*patched, new_file.span()));
    return 0;
}
