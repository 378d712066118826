// fuzz_streaming_chunks.cpp - streaming equals one-shot for all four jobs.
//
// Input: basis || new file || parameters (from the end: format, block length,
// strong length, threads, big mode and its seed, input and output chunk
// schedules, a signature corruption, basis length).
// Each job runs through fuzzer-chosen input and output windows (sizes cycled,
// 0 and 1 included; see fuzz_common.hpp for the contract checks of the driver).
// In big mode (1 input in 16 x 16, and 1 in 16 of the mutations of an input that
// took it; see one_in in fuzz_common.hpp; blocks over 4 bytes) the new file is blown up to 33-133 KB and the input
// windows are sized around 32768 + block length (output windows >= 1024 bytes), where the delta job carries
// bytes between calls and may start scanning on several cores.
//   * signature job output == make_signature();
//   * loadsig job on the (possibly truncated or corrupted) signature == load_signature():
//     same records, or the same error code;
//   * delta job output == make_delta() (for an empty signature, where each input
//     chunk becomes a literal, only with a constant schedule; otherwise the delta
//     is checked to describe the new file);
//   * patch job output == apply_patch(), which is the new file with full strong sums.
#include "delta_checker.hpp"

#include <rdelta/rdelta.hpp>

namespace {

using namespace rdelta;
using namespace rdelta::fuzz;

void check_same_signature(const signature& a, const signature& b) {
    FUZZ_CHECK(a.params().magic == b.params().magic && a.params().block_len == b.params().block_len &&
                   a.params().strong_len == b.params().strong_len,
               "streamed loadsig has other parameters");
    FUZZ_CHECK(a.block_count() == b.block_count(), "streamed loadsig has %zu blocks, one-shot %zu", a.block_count(),
               b.block_count());
    for (std::size_t i = 0; i < a.block_count(); ++i)
        FUZZ_CHECK(a.weak_sum(i) == b.weak_sum(i) && same(a.strong_sum(i), b.strong_sum(i)),
                   "streamed loadsig differs at block %zu", i);
}

const char* what(const run_result& r) {
    return r.ok ? "ok" : r.err.message.c_str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    data_producer p(data, size);
    static constexpr magic formats[] = {magic::md4_sig, magic::blake2_sig, magic::rk_md4_sig, magic::rk_blake2_sig};
    static constexpr std::uint32_t larger_blocks[] = {128, 256, 1000, 2048, 4096};
    sig_params prm;
    prm.magic = static_cast<std::uint32_t>(p.pick(formats));
    const std::size_t full = max_strong_len(prm.format().strong);
    prm.block_len = p.boolean() ? p.value<std::uint32_t>(1, 64) : p.pick(larger_blocks);
    prm.strong_len = p.value<std::uint32_t>(1, static_cast<std::uint32_t>(full));
    // librsync's bytes (no checksum trailer): check_delta_against wants nothing after END.
    const delta_options opts{{fuzz_threads(p.value<unsigned>(1, 3))}, false};
    // Big mode: its parameter and a 1-in-16 draw on the whole input (one_in), not
    // with blocks of 1-4 bytes (which match almost everywhere: a second per input).
    const bool big = p.value<unsigned>(0, 15) == 9 && one_in(data, size, 16) && prm.block_len > 4;
    xorshift rng{big ? p.integral(0, UINT32_MAX) * 0x9e3779b97f4a7c15ull + 1 : 1};
    const chunk_schedule in_sched =
        big ? chunk_schedule::around(p, max_literal_run, 2 * prm.block_len + 256) : chunk_schedule::from(p);
    // Output windows of a few bytes over a 100 KB output cost seconds, and each call
    // copies its whole input window afresh (up to 100 KB for 64 bytes of output): in
    // big mode output windows are at least 1024 bytes, more than any command (tiny
    // ones are fuzzed on small files).
    const chunk_schedule out_sched = big ? chunk_schedule::from(p).at_least(1024) : chunk_schedule::from(p);
    const unsigned corruption = p.value<unsigned>(0, 3);  // 0, 1: none; 2: truncate; 3: flip a byte
    const std::size_t corrupt_at = p.value<std::size_t>(0, 65535);
    const std::size_t basis_len = p.value<std::size_t>(0, 8192);
    // Blocks of 1-4 bytes make signatures 5-36 times the basis and match almost
    // everywhere: at most 1 KB of basis and of new file then, so driving them
    // through windows of a few bytes stays fast.
    const std::size_t small_cap = prm.block_len <= 4 ? 1024 : SIZE_MAX;
    const auto basis_part = p.bytes(basis_len);
    exact_buffer basis(basis_part.first(std::min(basis_part.size(), small_cap)));
    const auto rest = p.rest();
    const auto payload = rest.first(std::min(rest.size(), small_cap));
    exact_buffer new_file(big ? synth_new(basis.span(), payload, prm.block_len, 33000 + rng.below(100000), rng)
                              : bytes(payload.begin(), payload.end()));

    // Signature.
    auto sig_once = make_signature(basis.span(), prm, opts);
    FUZZ_CHECK(sig_once.ok(), "make_signature: %s", sig_once.ok() ? "" : describe(sig_once.err()).c_str());
    {
        auto j = make_signature_job(prm, opts);
        const run_result r = drive(*j, basis.span(), in_sched, out_sched);
        FUZZ_CHECK(r.ok && same(r.out, *sig_once), "streamed signature (%s, %zu bytes) differs from one-shot at %zu",
                   what(r), r.out.size(), first_difference(r.out, *sig_once));
    }

    // Loadsig, on the signature or a damaged copy of it.
    bytes sig_file = *sig_once;
    if (corruption == 2) sig_file.resize(corrupt_at % (sig_file.size() + 1));
    if (corruption == 3) sig_file[corrupt_at % sig_file.size()] ^= static_cast<std::uint8_t>(1 + corrupt_at / 256);
    auto loaded_once = load_signature(sig_file);
    {
        signature streamed;
        auto j = make_loadsig_job(&streamed);
        const run_result r = drive(*j, sig_file, in_sched, out_sched);
        FUZZ_CHECK(r.ok == loaded_once.ok(), "streamed loadsig %s, one-shot %s", what(r),
                   loaded_once.ok() ? "ok" : loaded_once.err().message.c_str());
        FUZZ_CHECK(r.out.empty(), "loadsig wrote %zu bytes of output", r.out.size());
        if (r.ok)
            check_same_signature(streamed, *loaded_once);
        else
            FUZZ_CHECK(r.err.code == loaded_once.err().code, "streamed loadsig error %s, one-shot %s",
                       describe(r.err).c_str(), describe(loaded_once.err()).c_str());
    }
    if (corruption >= 2) {
        loaded_once = load_signature(*sig_once);
        FUZZ_CHECK(loaded_once.ok(), "our signature does not load: %s", describe(loaded_once.err()).c_str());
    }
    signature& sig = *loaded_once;
    if (auto built = sig.build_index(); !built) FUZZ_CHECK(false, "build_index: %s", describe(built.err()).c_str());

    // Delta.
    const bool slack = sig.block_count() == 0;
    auto delta_once = make_delta(sig, new_file.span(), in_sched.first(), opts);
    FUZZ_CHECK(delta_once.ok(), "make_delta: %s", delta_once.ok() ? "" : describe(delta_once.err()).c_str());
    bytes delta;
    {
        auto j = make_delta_job(sig, opts);
        run_result r = drive(*j, new_file.span(), in_sched, out_sched);
        FUZZ_CHECK(r.ok, "streamed delta: %s", what(r));
        if (!slack || in_sched.constant())
            FUZZ_CHECK(same(r.out, *delta_once), "streamed delta (%zu bytes) differs from one-shot (%zu) at %zu",
                       r.out.size(), delta_once->size(), first_difference(r.out, *delta_once));
        check_delta_against(sig, r.out, new_file.span());
        delta = std::move(r.out);
    }

    // Patch.
    auto patched_once = apply_patch(basis.span(), delta);
    FUZZ_CHECK(patched_once.ok(), "apply_patch: %s", patched_once.ok() ? "" : describe(patched_once.err()).c_str());
    if (prm.strong_len == full)
        FUZZ_CHECK(same(*patched_once, new_file.span()), "round trip differs at %zu",
                   first_difference(*patched_once, new_file.span()));
    {
        memory_basis reader(basis.span());
        auto j = make_patch_job(reader);
        const run_result r = drive(*j, delta, in_sched, out_sched);
        FUZZ_CHECK(r.ok && same(r.out, *patched_once), "streamed patch (%s, %zu bytes) differs from one-shot at %zu",
                   what(r), r.out.size(), first_difference(r.out, *patched_once));
    }
    return 0;
}
