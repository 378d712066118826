// rdelta/delta.hpp - delta generation against a loaded signature.
// Stability: unstable until 1.0 (the file formats are fixed: librsync 2.3.2's).
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>
#include <rdelta/io.hpp>
#include <rdelta/job.hpp>
#include <rdelta/signature.hpp>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace rdelta {

namespace detail {
class signature_tap;
}

/// Options of a delta: those of every job, and the delta's own.
struct RDELTA_API delta_options : job_options {
    /// Append the new file's checksum trailer after END (on by default, as the
    /// rdelta tool writes it), so a patch against the wrong basis fails instead of
    /// writing a wrong file. Off, a delta is librsync's exact bytes (the C API's
    /// always are; `rdelta delta --no-checksum`).
    bool checksum = true;
    /// Match only blocks at or after the window's own offset (as rsync's
    /// --inplace), so the delta can be applied in place; still a valid librsync delta.
    bool in_place_safe = false;
    /// A work budget against untrusted signatures. Fail with errc::mem_error
    /// once the bytes strong-hashed for windows exceed (this + 2 * basis size / 2^32)
    /// per input byte, plus 64 MiB and 16 blocks; 0 = no limit (librsync has none).
    /// Honest work: where nothing matches, each window hits some block's weak sum
    /// with probability blocks / 2^32 and costs a block, so basis size / 2^32 bytes
    /// per byte (256 for a 1 TiB basis), which the second term allows twice over;
    /// where data matches, about one byte per byte; runs and short periods of equal
    /// windows are hashed once. A crafted signature makes every window hit.
    std::uint64_t max_strong_work = default_max_strong_work;
    static constexpr std::uint64_t default_max_strong_work = 256;
    /// With `checksum`: the chunk root of the basis the delta is made for (as a
    /// chunked trailer or a manifest gives it). The trailer then names it ("rdcb",
    /// 48 bytes) and an in-place patch refuses the delta, unchanged, when the image's
    /// manifest shows another version of the image.
    std::optional<std::array<std::uint8_t, 16>> basis_root;
};

/// A job that reads the new file and writes a delta against `sig`.
/// `sig` must outlive the job; its index is used when build_index() made the one
/// these options need, else the job builds its own. A signature with no blocks
/// (an empty basis) makes every input chunk one LITERAL ("slack delta", so
/// chunking matters only then). Up to END the output is byte-identical to rdiff
/// 2.3.2 whatever `options.threads` is; large input chunks are scanned on several
/// cores. With `options.checksum` (the default), 32 bytes follow END: "rdcm", the
/// new file's length (u64 big-endian), the chunk size (u32, 65536) and the XXH3-128
/// root over the XXH3-128 of each chunk (docs/format.md, "Checksum trailer"); rdiff
/// ignores them. Set `checksum = false` for rdiff's exact bytes.
RDELTA_API std::unique_ptr<job> make_delta_job(const signature& sig, delta_options options = {});

/// The input piece size delta jobs scan best with: enough for `threads` cores
/// (0 = all) to share, while memory stays bounded. A job holds about one piece of
/// input and the output of one piece, besides the block and literal run it
/// carries, so pieces are at most 32 MiB (one block and a bit for larger blocks).
RDELTA_API std::size_t delta_chunk_size(const signature& sig, unsigned threads);

/// Told how many bytes of the new file have been encoded so far.
using delta_progress = std::function<void(std::uint64_t)>;

/// Where a delta also writes the new file's signature, made from the bytes the
/// delta reads (`rdelta delta --new-signature`): the new file is read once for
/// both. Byte for byte what make_signature_from() makes of the new file with
/// `params`; holes get the zero block's record without being hashed.
struct RDELTA_API new_signature_output {
    sig_params params;
    byte_sink sink;
};

/// Delta of a random-access new file of `size` bytes (a regular file, a block
/// device, memory). Ranges that `new_file.is_hole()` reports are not read: a run
/// of zeros is encoded from the sums of one zero block, in time proportional to
/// the blocks it spans. Same bytes as make_delta_job() over the whole file; with
/// an empty signature the file is read in chunks of the block length, as rdiff.
/// `sink` is called on the caller's thread, in pieces of up to about 288 KiB
/// (256 KiB and the command that crossed that mark), as the scan makes them.
/// With `new_signature`, its sink receives the new file's signature as well.
RDELTA_API result<job_stats> make_delta_from(basis_reader& new_file, std::uint64_t size, const signature& sig,
                                             delta_options options, const byte_sink& sink,
                                             const delta_progress& progress = {},
                                             const new_signature_output* new_signature = nullptr);

/// A stream of the new file, for make_delta_job(), that makes the new file's
/// signature of what is read through it (a pipe has no second read). Call finish()
/// once the delta job has read everything.
class RDELTA_API new_signature_tee final : public byte_source {
public:
    new_signature_tee(byte_source& in, const new_signature_output& out, unsigned threads = 0);
    ~new_signature_tee() override;
    result<std::size_t> read_full(std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> size() const noexcept override { return in_.size(); }
    const std::string& name() const noexcept override { return in_.name(); }
    /// The last block's record, and the signature's statistics.
    result<job_stats> finish();

private:
    byte_source& in_;
    std::unique_ptr<detail::signature_tap> tap_;
};

/// Delta of a whole new file held in memory (slack deltas use `slack_chunk` bytes).
RDELTA_API result<std::vector<std::uint8_t>> make_delta(const signature& sig, std::span<const std::uint8_t> new_file,
                                                        std::size_t slack_chunk = 0, delta_options options = {});

}  // namespace rdelta
