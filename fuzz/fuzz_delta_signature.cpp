// fuzz_delta_signature.cpp - arbitrary signature bytes and a new file -> delta.
//
// Input: signature bytes || new file || basis || parameters (from the end: threads,
// slack chunk size, signature length, new-file length).
// When the signature loads, the delta must be canonical and describe the new file
// (delta_checker.hpp), must apply to a basis of block_count * block_len bytes
// giving a file of the new file's length, and against the fuzzer's basis must
// either apply or fail with input_ended (a COPY past its end) - never corrupt.
#include "delta_checker.hpp"

#include <rdelta/rdelta.hpp>

using namespace rdelta;
using namespace rdelta::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    data_producer p(data, size);
    const unsigned threads = fuzz_threads(p.value<unsigned>(1, 2));
    const std::size_t slack_chunk = p.boolean() ? 0 : p.value<std::size_t>(1, 300);
    const std::size_t sig_len = p.value<std::size_t>(0, 8192);
    const std::size_t new_len = p.value<std::size_t>(0, 4096);
    exact_buffer sig_bytes(p.bytes(sig_len));
    exact_buffer new_file(p.bytes(new_len));
    exact_buffer basis(p.rest());

    auto loaded = load_signature(sig_bytes.span());
    if (!loaded) return 0;
    signature& sig = *loaded;
    if (auto built = sig.build_index(); !built) {
        FUZZ_CHECK(false, "build_index failed: %s", describe(built.err()).c_str());
    }

    // librsync's bytes (no checksum trailer): check_delta_against wants nothing after END.
    auto delta = make_delta(sig, new_file.span(), slack_chunk, delta_options{{threads}, false});
    FUZZ_CHECK(delta.ok(), "delta failed: %s", delta.ok() ? "" : describe(delta.err()).c_str());
    check_delta_against(sig, *delta, new_file.span());

    // A basis as long as the signature covers (up to GiB), made as it is read: held
    // in memory, one of up to 4 MiB was allocated and filled for every input.
    const std::uint64_t covered_len = std::uint64_t{sig.block_count()} * sig.params().block_len;
    pattern_basis full(covered_len, 131, 7);
    const run_result applied = patch_from(full, *delta);
    FUZZ_CHECK(applied.ok, "delta does not apply to a basis of %llu bytes: %s",
               static_cast<unsigned long long>(covered_len), applied.ok ? "" : describe(applied.err).c_str());
    FUZZ_CHECK(applied.out.size() == new_file.size(), "patched %zu bytes, new file has %zu", applied.out.size(),
               new_file.size());

    auto patched = apply_patch(basis.span(), *delta);
    if (!patched) {
        FUZZ_CHECK(patched.err().code == errc::input_ended, "our delta fails to parse: %s",
                   describe(patched.err()).c_str());
        FUZZ_CHECK(covered_len > basis.size(), "COPY past the end of a basis as long as the signature covers");
    } else {
        FUZZ_CHECK(patched->size() == new_file.size(), "patched %zu bytes, new file has %zu", patched->size(),
                   new_file.size());
    }
    return 0;
}
