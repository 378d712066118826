// rdelta/delta.hpp - delta generation against a loaded signature.
// Stability: stable.
#pragma once

#include <rdelta/error.hpp>
#include <rdelta/job.hpp>
#include <rdelta/signature.hpp>

#include <memory>
#include <span>
#include <vector>

namespace rdelta {

/// A job that reads the new file and writes a delta against `sig`.
/// `sig` must outlive the job and have its index built, unless it has no blocks
/// (an empty basis), in which case every input chunk becomes one LITERAL ("slack
/// delta", so chunking matters only then). Output is byte-identical to rdiff 2.3.2
/// whatever `options.threads` is; large input chunks are scanned on several cores.
/// With `options.checksum`, 28 bytes follow END: "rdck", the new file's length
/// (u64 big-endian) and its XXH3-128 (canonical form); rdiff ignores them.
std::unique_ptr<job> make_delta_job(const signature& sig, job_options options = {});

/// Delta of a whole new file held in memory (slack deltas use `slack_chunk` bytes).
result<std::vector<std::uint8_t>> make_delta(const signature& sig,
                                             std::span<const std::uint8_t> new_file,
                                             std::size_t slack_chunk = 0, job_options options = {});

}  // namespace rdelta
