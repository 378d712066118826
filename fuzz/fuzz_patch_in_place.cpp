// fuzz_patch_in_place.cpp - a delta applied in place, with the undo journal, to a
// fuzzer-chosen sparse image held in memory.
//
// Input: image || delta-or-edits || parameters (from the end: mode, journal batch
// size, hole, checksum, block length, image length). In raw mode the payload is
// the delta (its magic optionally supplied); in edit mode it is a list of edits
// that make a new file, whose in-place-safe delta (rdelta's own) is applied. Checks:
//   * success: the file equals apply_patch(image, delta), and no journal is left;
//   * failure: the file is untouched (bytes and holes), no journal is left, and the
//     error is one a delta can cause; a delta apply_patch accepts is refused only
//     as unsafe in place (param_error) or as already applied (corrupt).
// In edit mode with a checksum, the image may end in up to three 64 KiB chunks of
// hole, and a second night follows: the same edits again, applied with the manifest
// the first patch left (one fuzzer-chosen byte of it perhaps damaged), which must
// give apply_patch's result too.
#include "fuzz_common.hpp"

#include "delta/delta_job.hpp"

#include <rdelta/rdelta.hpp>

namespace {

using namespace rdelta;
using namespace rdelta::fuzz;

constexpr std::uint64_t page = 4096;

class paged_file final : public in_place_file {
public:
    paged_file(std::span<const std::uint8_t> content, std::uint64_t hole_from, std::uint64_t hole_to)
        : bytes_(content.begin(), content.end()), stored_((bytes_.size() + page - 1) / page, true) {
        for (std::uint64_t q = hole_from / page; q < hole_to / page && q < stored_.size(); ++q) {
            stored_[q] = false;
            std::fill_n(bytes_.begin() + static_cast<std::ptrdiff_t>(q * page),
                        std::min<std::uint64_t>(page, bytes_.size() - q * page), 0);
        }
    }
    std::uint64_t size() const override { return bytes_.size(); }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos >= bytes_.size()) return std::size_t{0};
        const std::size_t n = std::min<std::size_t>(out.size(), bytes_.size() - pos);
        std::memcpy(out.data(), bytes_.data() + pos, n);
        return n;
    }
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> b) override {
        FUZZ_CHECK(pos + b.size() <= limit_, "in-place write past the output size (%llu)",
                   static_cast<unsigned long long>(pos + b.size()));
        ++changes_;
        if (pos + b.size() > bytes_.size()) grow(pos + b.size());
        std::memcpy(bytes_.data() + pos, b.data(), b.size());
        for (std::uint64_t q = pos / page; q < (pos + b.size() + page - 1) / page; ++q) stored_[q] = true;
        return {};
    }
    result<void> resize(std::uint64_t size) override {
        ++changes_;
        grow(size);
        bytes_.resize(size);
        stored_.resize((size + page - 1) / page);
        return {};
    }
    std::pair<bool, std::uint64_t> extent(std::uint64_t pos, std::uint64_t limit) override {
        const bool hole = !stored(pos / page);
        std::uint64_t end = pos;
        while (end < pos + limit && !stored(end / page) == hole) end = (end / page + 1) * page;
        return {hole, std::min(end, pos + limit) - pos};
    }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override {
        for (std::uint64_t q = pos / page; q < (pos + len + page - 1) / page; ++q)
            if (stored(q)) return false;
        return true;
    }
    result<void> punch_hole(std::uint64_t pos, std::uint64_t len) override {
        for (std::uint64_t q = pos / page; q < (pos + len) / page && q < stored_.size(); ++q) {
            stored_[q] = false;
            std::fill_n(bytes_.begin() + static_cast<std::ptrdiff_t>(q * page),
                        std::min<std::uint64_t>(page, bytes_.size() - q * page), 0);
        }
        return {};
    }
    std::pair<std::uint64_t, std::uint64_t> identity() const override { return {1, 2}; }
    std::pair<std::int64_t, std::int64_t> change_time() override { return {1, changes_}; }
    bool same(const paged_file& o) const { return bytes_ == o.bytes_ && stored_ == o.stored_; }
    std::int64_t changes_ = 1;  // moved by every change, as a file's ctime

    std::vector<std::uint8_t> bytes_;
    std::vector<bool> stored_;
    std::uint64_t limit_ = UINT64_MAX;

private:
    bool stored(std::uint64_t q) const { return q < stored_.size() && stored_[q]; }
    void grow(std::uint64_t size) {
        if (size > bytes_.size()) bytes_.resize(size, 0), stored_.resize((size + page - 1) / page, false);
    }
};

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
    const std::uint64_t damage = p.value<std::uint64_t>(0, 400);  // a manifest byte to flip, past its end: none
    const auto image_part = p.bytes(image_len);
    const auto rest = p.rest();

    paged_file file(image_part, hole_from, hole_from + hole_len);
    if (tail) {
        (void)file.resize(file.bytes_.size() + tail_hole);
        file.changes_ = 1;
    }
    const std::vector<std::uint8_t> image = file.bytes_;  // holes read as zeros
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
    if (ref.ok()) file.limit_ = std::max<std::uint64_t>(ref->size(), image.size());
    memory_journal journal;
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
    FUZZ_CHECK(!journal.present, "a journal was left behind (%s)",
               done.ok() ? "success" : describe(done.err()).c_str());
    if (done.ok()) {
        FUZZ_CHECK(ref.ok(), "in place succeeded where apply_patch fails: %s", describe(ref.err()).c_str());
        FUZZ_CHECK(file.bytes_ == *ref, "in-place result (%zu bytes) differs from apply_patch (%zu)",
                   file.bytes_.size(), ref->size());
        FUZZ_CHECK(done->has_trailer == done->job.checksum_verified, "trailer found but not verified");
        if (raw || !done->manifest_published) return 0;
        // The next night, with the manifest.
        if (damage < manifest.bytes.size()) manifest.bytes[damage] ^= 0x10;
        const std::vector<std::uint8_t> last = file.bytes_;
        auto sig2 = make_signature(last, {0x72730147, block, 8});
        FUZZ_CHECK(sig2.ok(), "signature: %s", describe(sig2.err()).c_str());
        auto loaded2 = load_signature(*sig2);
        FUZZ_CHECK(loaded2.ok() && loaded2->build_index(true).ok(), "loading the signature failed");
        auto d2 = delta_of(*loaded2, edited(last, rest), delta_options{{1}, true, true});
        FUZZ_CHECK(d2.ok(), "delta: %s", describe(d2.err()).c_str());
        delta = std::move(*d2);
        const auto ref2 = apply_patch(last, delta);
        FUZZ_CHECK(ref2.ok(), "apply_patch refuses rdelta's delta: %s", describe(ref2.err()).c_str());
        file.limit_ = std::max<std::uint64_t>(ref2->size(), last.size());
        auto again = patch_in_place(open, file, options);
        FUZZ_CHECK(again.ok(), "the next night's patch failed: %s", describe(again.err()).c_str());
        FUZZ_CHECK(file.bytes_ == *ref2, "the next night's result differs from apply_patch");
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
