// fuzz_patch_in_place.cpp - a delta applied in place, with the undo journal, to a
// fuzzer-chosen sparse image held in memory.
//
// Input: image || delta-or-edits || parameters (from the end: mode, journal batch
// size, hole, checksum, block length, image length, tail hole, manifest damage,
// power cut). In raw mode the payload is
// the delta (its magic optionally supplied); in edit mode it is a list of edits
// that make a new file, whose in-place-safe delta (rdelta's own) is applied. Checks:
//   * success: the file equals apply_patch(image, delta), and no journal is left;
//     for one input in four, the same patch with the power cut after a chosen
//     change (what was not synced lost, kept or torn: tests/support/paged_file.hpp),
//     then recovered, leaves the old image or the new one (the new one if it had
//     said done);
//   * failure: the file is untouched (bytes and holes), no journal is left, and the
//     error is one a delta can cause; a delta apply_patch accepts is refused only
//     as unsafe in place (param_error) or as already applied (corrupt).
// In edit mode with a checksum, the image may end in up to three 64 KiB chunks of
// hole, and a second night follows: the same edits again, applied with the manifest
// the first patch left (one fuzzer-chosen byte of it perhaps damaged), which must
// give apply_patch's result too.
#include "fuzz_common.hpp"
#include "paged_file.hpp"
#include "volatile_journal.hpp"

#include "delta/delta_job.hpp"

#include <rdelta/rdelta.hpp>

namespace {

using namespace rdelta;
using namespace rdelta::fuzz;

using test::paged_file;
using test::unsynced;
constexpr std::uint64_t page = paged_file::page;

// A new file from the image and a list of 4-byte edits: kind, position (2 bytes), length.
std::vector<std::uint8_t> edited(const std::vector<std::uint8_t>& image, std::span<const std::uint8_t> edits) {
    std::vector<std::uint8_t> out = image;
    for (std::size_t i = 0; i + 4 <= edits.size() && i < 64; i += 4) {
        const std::size_t pos = out.empty() ? 0 : ((edits[i + 1] << 8) | edits[i + 2]) % (out.size() + 1);
        const std::size_t len = edits[i + 3] * 7u + 1;
        const auto fill = static_cast<std::uint8_t>(edits[i] | 1);
        switch (edits[i] % 5) {
            case 0: out.insert(out.begin() + static_cast<std::ptrdiff_t>(pos), len, fill); break;
            case 1:
                out.erase(out.begin() + static_cast<std::ptrdiff_t>(pos),
                          out.begin() + static_cast<std::ptrdiff_t>(std::min(out.size(), pos + len)));
                break;
            case 2:
                for (std::size_t k = pos; k < std::min(out.size(), pos + len); ++k)
                    out[k] = static_cast<std::uint8_t>(fill + k);
                break;
            case 3: out.resize(out.size() + len, edits[i] & 2 ? 0 : fill); break;
            default: out.resize(std::min(out.size(), pos)); break;
        }
    }
    return out;
}

// make_delta's bytes for `next`, its runs of 4 KiB of zeros or more passed to the
// job unscanned (push_zeros_to), as make_delta_from passes a sparse file's holes
// (fuzz_zero_runs checks that the bytes are the same). Scanned, a tail hole costs
// 0.1-0.4 s under ASan: the in-place-safe scan hashes every window of zeros past
// the basis' last zero block.
result<bytes> delta_of(const signature& sig, std::span<const std::uint8_t> next, const delta_options& options) {
    if (sig.block_count() == 0) return make_delta(sig, next, 0, options);  // a slack delta scans nothing
    auto made = detail::make_scanning_delta_job(sig, options);
    if (!made) return std::move(made).err();
    bytes out;
    const byte_sink sink = [&](std::span<const std::uint8_t> b) -> result<void> {
        out.insert(out.end(), b.begin(), b.end());
        return {};
    };
    constexpr std::size_t min_run = 4096;
    std::size_t data_from = 0;
    for (std::size_t pos = 0; pos < next.size();) {
        if (next[pos] != 0) {
            ++pos;
            continue;
        }
        std::size_t end = pos;
        while (end < next.size() && next[end] == 0) ++end;
        if (end - pos >= min_run) {
            if (auto r = (*made)->push_to(next.subspan(data_from, pos - data_from), false, sink); !r)
                return std::move(r).err();
            if (auto r = (*made)->push_zeros_to(end - pos, sink); !r) return std::move(r).err();
            data_from = end;
        }
        pos = end;
    }
    if (auto r = (*made)->push_to(next.subspan(data_from), true, sink); !r) return std::move(r).err();
    return out;
}

// The patch again on the image as it was, the power cut after its k-th change of
// the image or the journal: once the power is back and recovery has run, the image
// is the old one or the new one, and the new one if the patch had said it was done.
void check_power_cut(const paged_file& before, const paged_file& after, const delta_opener& open,
                     in_place_options options, std::uint64_t k, unsynced fate) {
    test::power power;
    power.budget = k;
    paged_file file = before;
    file.attach(power);
    test::volatile_journal journal(power);
    memory_manifest manifest;
    options.journal = &journal, options.manifest = &manifest;
    const bool finished = patch_in_place(open, file, options).ok();
    power.budget = UINT64_MAX;
    file.power_cut(fate, k);
    journal.reboot();
    auto r = recover_in_place(file, journal);
    FUZZ_CHECK(r.ok(), "recovery after a power cut at change %llu failed: %s", static_cast<unsigned long long>(k),
               describe(r.err()).c_str());
    FUZZ_CHECK(!journal.present, "recovery left the journal");
    FUZZ_CHECK(file.same(before) || file.same(after), "a power cut at change %llu (%d) left neither image",
               static_cast<unsigned long long>(k), static_cast<int>(fate));
    FUZZ_CHECK(!finished || file.same(after), "a patch said done is not on the disk after a power cut at change %llu",
               static_cast<unsigned long long>(k));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    data_producer p(data, size);
    const bool raw = p.boolean();
    static constexpr std::uint64_t batches[] = {1, 100, 4096, 65536, std::uint64_t{64} << 20};
    const std::uint64_t batch = p.pick(batches);
    const std::uint64_t hole_from = p.value<std::uint64_t>(0, 4) * page, hole_len = p.value<std::uint64_t>(0, 3) * page;
    const bool checksum = p.boolean();
    static constexpr std::uint32_t blocks[] = {16, 64, 256, 512, 4096};
    std::uint32_t block = p.pick(blocks);
    const bool add_magic = p.boolean();
    const std::size_t image_len = p.value<std::size_t>(0, 12000);
    const std::uint64_t tail_hole = p.value<std::uint64_t>(0, 3) << 16;
    // A tail hole of 64-192 KiB in blocks of 16 or 64 bytes makes signatures of
    // thousands of identical records, whose index costs 0.1-0.3 s to build and search
    // under ASan (twice); blocks of at least 256 bytes there give the manifest the
    // same chunks of hole.
    const bool tail = !raw && checksum && tail_hole;
    if (tail) block = std::max<std::uint32_t>(block, 256);
    const std::uint64_t damage = p.value<std::uint64_t>(0, 400);    // a manifest byte to flip, past its end: none
    const std::uint64_t cut_at = p.value<std::uint64_t>(0, 65535);  // modulo the changes of the whole patch
    // One input in four replays the patch with a power cut (it doubles what an
    // input costs): a byte the fuzzer steers, which also picks what the cut keeps.
    const auto cut_mode = p.value<unsigned>(0, 255);
    const bool cut = cut_mode % 4 == 0;
    const auto fate = static_cast<unsynced>(cut_mode / 4 % 3);
    const auto image_part = p.bytes(image_len);
    const auto rest = p.rest();

    paged_file file(image_part);
    file.make_hole(hole_from, hole_from + hole_len);
    if (tail) (void)file.resize(file.size() + tail_hole), (void)file.sync();
    file.changes = 1, file.count = {};
    test::power counted;  // the changes of the whole patch
    file.attach(counted);
    const std::vector<std::uint8_t> image = file.data();  // holes read as zeros
    std::vector<std::uint8_t> delta;
    if (raw) {
        static constexpr std::uint8_t magic[] = {0x72, 0x73, 0x02, 0x36};
        const std::size_t prefix = add_magic ? sizeof magic : 0;
        delta.resize(prefix + rest.size());
        if (prefix) std::memcpy(delta.data(), magic, prefix);
        if (!rest.empty()) std::memcpy(delta.data() + prefix, rest.data(), rest.size());
    } else {
        auto sig_bytes = make_signature(image, {0x72730147, block, 8});
        FUZZ_CHECK(sig_bytes.ok(), "signature: %s", describe(sig_bytes.err()).c_str());
        auto sig = load_signature(*sig_bytes);
        FUZZ_CHECK(sig.ok() && sig->build_index(true).ok(), "loading the signature failed");
        auto d = delta_of(*sig, edited(image, rest), delta_options{{1}, checksum, true});
        FUZZ_CHECK(d.ok(), "delta: %s", describe(d.err()).c_str());
        delta = std::move(*d);
    }

    const auto ref = apply_patch(image, delta);
    const paged_file before = file;
    const std::uint64_t limit = ref.ok() ? std::max<std::uint64_t>(ref->size(), image.size()) : UINT64_MAX;
    test::volatile_journal journal(counted);
    memory_manifest manifest;
    in_place_options options;
    options.manifest = &manifest;
    options.allow_unrecorded = true;  // a memory file keeps no record
    options.patch.delta_name = "fuzz.delta";
    options.journal = &journal;
    options.batch_bytes = batch;
    const delta_opener open = [&]() -> result<std::unique_ptr<byte_source>> {
        return std::unique_ptr<byte_source>(std::make_unique<memory_source>(delta, "fuzz.delta"));
    };
    auto done = patch_in_place(open, file, options);
    FUZZ_CHECK(file.count.furthest_write <= limit, "in-place write past the output size (%llu)",
               static_cast<unsigned long long>(file.count.furthest_write));
    FUZZ_CHECK(!journal.present, "a journal was left behind (%s)",
               done.ok() ? "success" : describe(done.err()).c_str());
    if (done.ok()) {
        FUZZ_CHECK(ref.ok(), "in place succeeded where apply_patch fails: %s", describe(ref.err()).c_str());
        FUZZ_CHECK(file.data() == *ref, "in-place result (%zu bytes) differs from apply_patch (%zu)",
                   file.data().size(), ref->size());
        FUZZ_CHECK(done->has_trailer == done->job.checksum_verified, "trailer found but not verified");
        if (cut) check_power_cut(before, file, open, options, cut_at % (counted.used + 1), fate);
        if (raw || !done->manifest_published) return 0;
        // The next night, with the manifest.
        if (damage < manifest.bytes.size()) manifest.bytes[damage] ^= 0x10;
        const std::vector<std::uint8_t> last = file.data();
        auto sig2 = make_signature(last, {0x72730147, block, 8});
        FUZZ_CHECK(sig2.ok(), "signature: %s", describe(sig2.err()).c_str());
        auto loaded2 = load_signature(*sig2);
        FUZZ_CHECK(loaded2.ok() && loaded2->build_index(true).ok(), "loading the signature failed");
        auto d2 = delta_of(*loaded2, edited(last, rest), delta_options{{1}, true, true});
        FUZZ_CHECK(d2.ok(), "delta: %s", describe(d2.err()).c_str());
        delta = std::move(*d2);
        const auto ref2 = apply_patch(last, delta);
        FUZZ_CHECK(ref2.ok(), "apply_patch refuses rdelta's delta: %s", describe(ref2.err()).c_str());
        file.count = {};
        auto again = patch_in_place(open, file, options);
        FUZZ_CHECK(again.ok(), "the next night's patch failed: %s", describe(again.err()).c_str());
        FUZZ_CHECK(file.count.furthest_write <= std::max<std::uint64_t>(ref2->size(), last.size()),
                   "the next night wrote past the output size (%llu)",
                   static_cast<unsigned long long>(file.count.furthest_write));
        FUZZ_CHECK(file.data() == *ref2, "the next night's result differs from apply_patch");
        return 0;
    }
    FUZZ_CHECK(file.same(before), "failed in-place patch (%s) changed the file", describe(done.err()).c_str());
    const errc c = done.err().code;
    FUZZ_CHECK(c == errc::input_ended || c == errc::corrupt || c == errc::bad_magic || c == errc::param_error,
               "unexpected in-place error %s", describe(done.err()).c_str());
    if (ref.ok())
        FUZZ_CHECK(c == errc::param_error || c == errc::corrupt, "apply_patch accepts a delta in place refuses: %s",
                   describe(done.err()).c_str());
    FUZZ_CHECK(raw || c == errc::corrupt, "rdelta's own in-place-safe delta refused: %s", describe(done.err()).c_str());
    return 0;
}
