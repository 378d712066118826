// fuzz_signature_load.cpp - arbitrary bytes parsed as a signature file.
//
// Input: signature bytes || new file || new-file length (2 bytes, from the end).
// If the signature loads, the loader must have taken exactly a header and whole
// records (librsync ignores at most 3 trailing bytes) and stored them unchanged;
// then the index is built and a delta of the new file is made against it, which
// must be canonical and describe the new file (delta_checker.hpp), and must apply
// to a basis of block_count * block_len bytes giving a file as long as the new one.
#include "delta_checker.hpp"

#include <rdelta/rdelta.hpp>

namespace {

using namespace rdelta;
using namespace rdelta::fuzz;

std::uint32_t be32(const std::uint8_t* p) {
    return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

void check_records(const signature& sig, std::span<const std::uint8_t> file) {
    const sig_params& prm = sig.params();
    const std::uint32_t magic_in_file = be32(file.data()), strong_in_file = be32(file.data() + 8);
    FUZZ_CHECK(prm.magic == magic_in_file || (magic_in_file == 0 && prm.magic == magic_of_format({})),
               "loaded magic %#x, file has %#x", prm.magic, magic_in_file);
    FUZZ_CHECK(prm.block_len == be32(file.data() + 4), "loaded block_len %u", prm.block_len);
    const std::size_t full = max_strong_len(prm.format().strong);
    FUZZ_CHECK(prm.strong_len == strong_in_file || (strong_in_file == 0 && prm.strong_len == full),
               "loaded strong_len %u, file has %u", prm.strong_len, strong_in_file);
    FUZZ_CHECK(prm.strong_len >= 1 && prm.strong_len <= full, "strong_len %u out of range", prm.strong_len);

    const std::size_t rec = 4 + prm.strong_len;
    const std::size_t used = 12 + sig.block_count() * rec;
    FUZZ_CHECK(used <= file.size() && file.size() - used <= 3, "%zu blocks of %zu bytes, file has %zu bytes",
               sig.block_count(), rec, file.size());
    for (std::size_t i = 0; i < sig.block_count(); ++i) {
        const std::uint8_t* r = file.data() + 12 + i * rec;
        FUZZ_CHECK(sig.weak_sum(i) == be32(r), "weak sum of block %zu", i);
        FUZZ_CHECK(same(sig.strong_sum(i), {r + 4, prm.strong_len}), "strong sum of block %zu", i);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    data_producer p(data, size);
    const std::size_t new_len = p.value<std::size_t>(0, 4096);
    const auto sig_part = p.bytes(p.remaining() > new_len ? p.remaining() - new_len : 0);
    const auto new_file = p.rest();

    exact_buffer sig_bytes(sig_part);
    auto loaded = load_signature(sig_bytes.span(), "fuzz.sig");
    if (!loaded) {
        const errc c = loaded.err().code;
        FUZZ_CHECK(c == errc::input_ended || c == errc::corrupt || c == errc::bad_magic || c == errc::param_error,
                   "unexpected loadsig error %s", describe(loaded.err()).c_str());
        return 0;
    }
    signature& sig = *loaded;
    check_records(sig, sig_bytes.span());

    auto indexed = sig.build_index();
    FUZZ_CHECK(indexed.ok(), "build_index failed: %s", indexed.ok() ? "" : describe(indexed.err()).c_str());

    exact_buffer new_bytes(new_file);
    // librsync's bytes (no checksum trailer): check_delta_against wants nothing after END.
    auto delta = make_delta(sig, new_bytes.span(), 0, delta_options{{0}, false});
    FUZZ_CHECK(delta.ok(), "delta failed: %s", delta.ok() ? "" : describe(delta.err()).c_str());
    check_delta_against(sig, *delta, new_bytes.span());

    // COPY commands address whole blocks: none reaches past block_count * block_len.
    // A basis of up to 64 KiB is held in memory (apply_patch); a longer one (up to
    // GiB) is made as it is read rather than allocated and filled for every input.
    const std::uint64_t basis_len = std::uint64_t{sig.block_count()} * sig.params().block_len;
    if (basis_len <= (std::uint64_t{1} << 16)) {
        exact_buffer basis(static_cast<std::size_t>(basis_len));
        if (basis.size()) std::memset(basis.data(), 0x5a, basis.size());
        auto applied = apply_patch(basis.span(), *delta);
        FUZZ_CHECK(applied.ok(), "our own delta does not apply: %s",
                   applied.ok() ? "" : describe(applied.err()).c_str());
        FUZZ_CHECK(applied->size() == new_file.size(), "patched %zu bytes, new file has %zu", applied->size(),
                   new_file.size());
        return 0;
    }
    pattern_basis basis(basis_len, 0, 0x5a);
    const run_result applied = patch_from(basis, *delta);
    FUZZ_CHECK(applied.ok, "our own delta does not apply: %s", applied.ok ? "" : describe(applied.err).c_str());
    FUZZ_CHECK(applied.out.size() == new_file.size(), "patched %zu bytes, new file has %zu", applied.out.size(),
               new_file.size());
    return 0;
}
