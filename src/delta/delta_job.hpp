// delta_job.hpp - the scanning delta job as seen by drivers that know where the
// new file's holes are (delta_file.cpp).
#pragma once

#include "core/job_pacing.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/io.hpp>
#include <rdelta/job.hpp>
#include <rdelta/signature.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>

namespace rdelta::detail {

/// A delta job that can also be told that the next input bytes are zeros.
class zero_aware_delta_job : public job {
public:
    /// The next `n` input bytes are zeros: encoded exactly as scanning them would
    /// encode them, without scanning (O(n / block length) unless the zeros become
    /// literal data). Output is queued: drain it with iterate() between calls, so
    /// pass holes in pieces to keep the queue small.
    virtual void feed_zeros(std::uint64_t n) = 0;
    /// The bytes at the end of the input so far that are not encoded yet; the job
    /// keeps a copy of them (at most a block plus a literal run).
    virtual std::size_t kept_bytes() const noexcept = 0;
    /// The next input starts with the kept bytes again, followed by new input: the
    /// job scans it in place, on all its threads, instead of scanning its copy
    /// joined to the start of the new input on one.
    virtual void next_input_repeats_kept() noexcept = 0;
    /// Scan `in` (the last input when `eof`) and pass all output to `sink`, on the
    /// caller's thread, before returning: in pieces of about 256 KiB as they are
    /// made, so the output is neither copied into a caller's window first nor left
    /// to go cold in a queue as large as the input. Queued output (feed_zeros) goes first.
    virtual result<void> push_to(std::span<const std::uint8_t> in, bool eof, const byte_sink& sink) = 0;
    /// feed_zeros(n), with the output passed to `sink` as it is made, as push_to()
    /// does: the zeros of a run that matches nothing become as many literal bytes,
    /// which a queue would hold all at once.
    virtual result<void> push_zeros_to(std::uint64_t n, const byte_sink& sink) = 0;
};

/// The scanning job for a signature with blocks. It uses the signature's index
/// when that was built with the duplicate policy `options.in_place_safe` needs, and
/// builds (and owns) one otherwise. With `gather_bytes`, inputs passed to
/// iterate() smaller than that are collected and scanned together (the output is
/// the same); drivers that use feed_zeros and kept_bytes pass 0. push_to() and
/// push_zeros_to() need the batched pacing: librsync's scans nothing while output
/// is held, and they offer no output window.
result<std::unique_ptr<zero_aware_delta_job>> make_scanning_delta_job(const signature& sig, delta_options options,
                                                                      std::size_t gather_bytes = 0,
                                                                      job_pacing pacing = job_pacing::batched);

/// make_delta_job() with a gathering size (0: none) and a pacing of the caller's
/// choice. The C API passes 0: it reports librsync's statistics, which count the
/// strong sums computed, and a scan over gathered input also hashes blocks ahead
/// of a match; and librsync's pacing, so that each rs_job_iter() call takes and
/// gives what librsync's would.
std::unique_ptr<job> make_delta_job_gathering(const signature& sig, delta_options options, std::size_t gather_bytes,
                                              job_pacing pacing);

}  // namespace rdelta::detail
