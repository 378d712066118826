// rdelta/signature.hpp - making signatures, and loaded signatures.
// Stability: unstable until 1.0 (the file formats are fixed: librsync 2.3.2's).
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/basis_reader.hpp>
#include <rdelta/byte_sink.hpp>
#include <rdelta/error.hpp>
#include <rdelta/format.hpp>
#include <rdelta/job.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rdelta {

class block_index;
namespace detail {
class index_access;
}

/// A signature held in memory: header parameters plus one (weak, strong) record per block.
class RDELTA_API signature {
public:
    /// An empty signature, for make_loadsig_job() to fill (or an empty basis's
    /// signature with default parameters).
    signature();
    explicit signature(sig_params params);
    ~signature();
    signature(signature&&) noexcept;
    signature& operator=(signature&&) noexcept;

    /// Header parameters (strong_len already resolved: never 0).
    const sig_params& params() const noexcept { return params_; }
    /// Number of block records.
    std::size_t block_count() const noexcept { return weak_.size(); }
    /// Raw weak sum of block i, as stored in the file.
    std::uint32_t weak_sum(std::size_t i) const noexcept { return weak_[i]; }
    /// All raw weak sums, in block order.
    std::span<const std::uint32_t> weak_sums() const noexcept { return weak_; }
    /// Stored (truncated) strong sum of block i.
    std::span<const std::uint8_t> strong_sum(std::size_t i) const noexcept {
        return {strong_.data() + i * params_.strong_len, params_.strong_len};
    }
    /// Append a block record: `strong` must hold exactly params().strong_len bytes
    /// (param_error otherwise); mem_error when the records cannot grow.
    result<void> add_block(std::uint32_t weak, std::span<const std::uint8_t> strong);
    /// Reserve room for n records (a hint); mem_error when that much cannot be had.
    result<void> reserve(std::size_t n);

    /// Build the lookup index once, to share it between delta jobs (as librsync's
    /// rs_build_hash_table). Optional: a delta job whose options need another index
    /// (`keep_duplicates` is what in-place-safe deltas need) or finds none builds
    /// its own. The signature must not change while an index is in use.
    result<void> build_index(bool keep_duplicates = false);

private:
    friend class detail::index_access;  // the delta jobs read the index

public:
    /// Bytes of memory held for records and index.
    std::size_t memory_bytes() const noexcept;

private:
    sig_params params_;
    std::vector<std::uint32_t> weak_;
    std::vector<std::uint8_t> strong_;
    std::unique_ptr<block_index> index_;
};

/// A job that reads a basis and writes its signature file.
/// Invalid parameters are reported by the first iterate(), as in librsync.
/// Blocks are hashed on up to `options.threads` cores; output is the same.
RDELTA_API std::unique_ptr<job> make_signature_job(const sig_params& params, job_options options = {});

/// Signature of a random-access input of `size` bytes (a regular file, a block
/// device, memory): slices are read and hashed on up to `options.threads` cores,
/// `basis.read()` being called from several threads at once. Same bytes as the job.
/// The sink receives the header, then the records of each group of slices (a few
/// MiB of input per core) in order: its byte count gives progress (records of
/// 4 + strong_len bytes, one per block), and an error it returns (a full disk, or
/// the caller's own "cancelled") stops the work and comes back unchanged.
RDELTA_API result<job_stats> make_signature_from(basis_reader& basis, std::uint64_t size, const sig_params& params,
                                                 job_options options, const byte_sink& sink);

/// A job that parses a signature file into `*out` (which must outlive the job).
/// The header is validated in librsync's order (docs/format.md).
/// `name` is used in error messages ("sig.bin: ...").
/// `file_size`, the signature file's size when known, lets it allocate the records once.
/// Header fields are judged in librsync's order, so a file that is no signature (a
/// delta, text) may fail on its strong sum length (corrupt) before its magic; with
/// `name_kind` that error says what the file is ("bad magic 0x72730236: not a
/// signature (it is a delta)"), with the same code.
RDELTA_API std::unique_ptr<job> make_loadsig_job(signature* out, std::string name = "signature",
                                                 std::optional<std::uint64_t> file_size = std::nullopt,
                                                 bool name_kind = false);

/// Parse a whole signature file held in memory.
RDELTA_API result<signature> load_signature(std::span<const std::uint8_t> bytes, std::string name = "signature");

/// Make a signature of a whole basis held in memory (sig file bytes); for the
/// tool's defaults pass recommended_sig_params(basis.size()).
RDELTA_API result<std::vector<std::uint8_t>> make_signature(std::span<const std::uint8_t> basis,
                                                            const sig_params& params, job_options options = {});

}  // namespace rdelta
