// rdelta/patch.hpp - applying a delta to a basis.
// Stability: unstable until 1.0 (the file formats are fixed: librsync 2.3.2's).
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/basis_reader.hpp>
#include <rdelta/error.hpp>
#include <rdelta/job.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rdelta {

/// Options of a patch job.
struct RDELTA_API patch_options {
    std::string delta_name = "delta";       ///< used in error messages ("delta.bin: ...")
    std::uint64_t max_output = UINT64_MAX;  ///< fail with mem_error beyond this many bytes
    bool require_checksum = false;          ///< fail (corrupt) when the delta has no checksum trailer
    /// When set, the job does not hash its output (hashing is a large part of a
    /// patch's time): a checksum trailer found after END is handed over instead,
    /// for the caller to check what it wrote with verify_trailer().
    std::function<void(std::span<const std::uint8_t>)> take_trailer;
    /// When set (only with take_trailer: the job does not see these bytes, so cannot
    /// hash them; without it the job fails with param_error), a COPY of copy_direct_min bytes or more bypasses the
    /// output window: the job first returns what it wrote before the COPY, and at its next call passes the basis range
    /// and the output offset (bytes output so far) to this function, which appends the bytes to the output itself and
    /// returns how many it appended. Fewer (0 when the output is not at that offset, or cannot take a direct copy) make
    /// the job read the rest of that COPY from the basis as usual. The caller must hand on each call's output before
    /// the next, as drive_job does. direct_file_copy() (rdelta/file.hpp) copies between files inside the kernel.
    std::function<result<std::uint64_t>(std::uint64_t basis_pos, std::uint64_t len, std::uint64_t out_pos)> copy_direct;
    static constexpr std::uint64_t copy_direct_min = std::uint64_t{64} << 10;
};

/// Check an output of `size` bytes, read back through `output` (holes are not
/// read; bytes past its end read as zeros), against a checksum trailer handed over
/// by patch_options::take_trailer. A mismatch is corrupt, with the patch job's message.
RDELTA_API result<void> verify_trailer(std::span<const std::uint8_t> trailer, basis_reader& output, std::uint64_t size,
                                       const std::string& delta_name);

/// A job that reads a delta and writes the new file; COPY commands read `basis`
/// (which must outlive the job). Accepts every encoding rdiff 2.3.2 accepts and
/// ignores bytes after END, except rdelta's checksum trailer (see make_delta_job),
/// which is verified: a mismatch fails with corrupt.
RDELTA_API std::unique_ptr<job> make_patch_job(basis_reader& basis, patch_options options = {});

/// Apply a whole delta held in memory.
RDELTA_API result<std::vector<std::uint8_t>> apply_patch(std::span<const std::uint8_t> basis,
                                                         std::span<const std::uint8_t> delta);

}  // namespace rdelta
