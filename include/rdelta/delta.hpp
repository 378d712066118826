// rdelta/delta.hpp - delta generation against a loaded signature.
// Stability: unstable until 1.0 (the file formats are fixed: librsync 2.3.2's).
#pragma once

#include <rdelta/error.hpp>
#include <rdelta/job.hpp>
#include <rdelta/signature.hpp>

#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace rdelta {

/// A job that reads the new file and writes a delta against `sig`.
/// `sig` must outlive the job; its index is used when build_index() made the one
/// these options need, else the job builds its own. A signature with no blocks
/// (an empty basis) makes every input chunk one LITERAL ("slack delta", so
/// chunking matters only then). Output is byte-identical to rdiff 2.3.2
/// whatever `options.threads` is; large input chunks are scanned on several cores.
/// With `options.checksum`, 28 bytes follow END: "rdck", the new file's length
/// (u64 big-endian) and its XXH3-128 (canonical form); rdiff ignores them.
std::unique_ptr<job> make_delta_job(const signature& sig, job_options options = {});

/// The input piece size delta jobs scan best with: enough for `threads` cores
/// (0 = all) to share, while memory stays bounded. A job holds about one piece of
/// input and the output of one piece, besides the block and literal run it
/// carries, so pieces are at most 32 MiB (one block and a bit for larger blocks).
std::size_t delta_chunk_size(const signature& sig, unsigned threads);

/// Receives delta bytes in order. make_delta_from() calls it on the caller's
/// thread, in pieces of up to about 288 KiB (256 KiB and the command that
/// crossed that mark), as the scan makes them.
using delta_sink = std::function<result<void>(std::span<const std::uint8_t>)>;
/// Told how many bytes of the new file have been encoded so far.
using delta_progress = std::function<void(std::uint64_t)>;

/// Delta of a random-access new file of `size` bytes (a regular file, a block
/// device, memory). Ranges that `new_file.is_hole()` reports are not read: a run
/// of zeros is encoded from the sums of one zero block, in time proportional to
/// the blocks it spans. Same bytes as make_delta_job() over the whole file; with
/// an empty signature the file is read in chunks of the block length, as rdiff.
result<job_stats> make_delta_from(basis_reader& new_file, std::uint64_t size, const signature& sig,
                                  job_options options, const delta_sink& sink,
                                  const delta_progress& progress = {});

/// Delta of a whole new file held in memory (slack deltas use `slack_chunk` bytes).
result<std::vector<std::uint8_t>> make_delta(const signature& sig,
                                             std::span<const std::uint8_t> new_file,
                                             std::size_t slack_chunk = 0, job_options options = {});

}  // namespace rdelta
