// rdelta/job.hpp - the streaming job interface shared by signature, loadsig, delta and patch.
//
// A job is fed input and drained of output through a `buffers` struct, as librsync's
// rs_job_iter(). The contract of iterate(), stated here only:
// - It consumes input from next_in/avail_in and writes output at next_out/avail_out,
//   advancing both. Signature, loadsig and delta jobs consume all the input offered
//   (buffering what they cannot use yet); a patch job may leave some in next_in when
//   its output window is full: offer those bytes again on the next call.
// - It returns done once eof_in is set and every output byte is written; blocked
//   when it needs more input or more output space; an error otherwise, and the same
//   error on every later call.
// - Set eof_in once no more input will come, and keep calling until done.
// A job never blocks on I/O itself and never needs its whole input in memory.
//
// Nothing the library returns throws: a job that runs out of memory (or cannot
// start a thread) returns errc::mem_error from iterate(), and the make_*_job()
// factories return a job failing so when they cannot build the real one (nullptr
// only when not even that can be allocated).
// Stability: unstable until 1.0 (the file formats are fixed: librsync 2.3.2's).
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>

#include <cstddef>
#include <cstdint>
#include <ctime>

namespace rdelta {

/// Input and output windows of one iterate() call; updated in place.
struct RDELTA_API buffers {
    const std::uint8_t* next_in = nullptr;  ///< next input byte
    std::size_t avail_in = 0;               ///< input bytes available at next_in
    bool eof_in = false;                    ///< no input after this
    std::uint8_t* next_out = nullptr;       ///< where the next output byte goes
    std::size_t avail_out = 0;              ///< free output space at next_out
};

/// What iterate() reports when it did not fail.
enum class job_status { done, blocked };

/// Options every job takes (delta jobs take delta_options, which add their own).
struct RDELTA_API job_options {
    /// Cores one job may use, the calling thread included; 0 (the default) = every
    /// core the machine reports, as the tool. 1 keeps a job on the calling thread.
    /// Helper threads come from one process-wide pool that grows to the largest
    /// count asked for and is shared by concurrent jobs, so a service running N
    /// jobs at once bounds them by giving each a count of its own (cores / N).
    unsigned threads = 0;
};

/// Counters of a job, as librsync's rs_stats_t.
struct RDELTA_API job_stats {
    const char* op = "noop";         ///< "signature", "loadsig", "delta" or "patch"
    std::int64_t lit_cmds = 0;       ///< LITERAL commands
    std::int64_t lit_bytes = 0;      ///< literal data bytes
    std::int64_t lit_cmdbytes = 0;   ///< opcode and length bytes of LITERAL commands
    std::int64_t copy_cmds = 0;      ///< COPY commands
    std::int64_t copy_bytes = 0;     ///< bytes copied from the basis
    std::int64_t copy_cmdbytes = 0;  ///< opcode, offset and length bytes of COPY commands
    std::int64_t sig_blocks = 0;     ///< blocks in a signature made or loaded
    std::size_t block_len = 0;       ///< block length of that signature
    std::int64_t in_bytes = 0;       ///< input bytes consumed
    std::int64_t out_bytes = 0;      ///< output bytes produced
    std::int64_t false_matches = 0;  ///< always 0 (as in librsync 2.3.2)
    // Delta search counters (rdelta extension; librsync keeps these in its hash table).
    std::int64_t searches = 0;       ///< windows looked up
    std::int64_t weak_hits = 0;      ///< lookups whose weak key was present
    std::int64_t strong_calcs = 0;   ///< strong sums computed for windows
    std::int64_t strong_bytes = 0;   ///< bytes hashed for those strong sums
    std::int64_t matches = 0;        ///< lookups that found a block
    bool checksum_verified = false;  ///< patch: a checksum trailer was present and matched
    /// Bytes of the input counted in in_bytes (or, for an in-place patch, of the
    /// output) that were holes of a sparse file: neither read nor written (rdelta
    /// extension; 0 where the job reads a stream).
    std::int64_t holes_skipped = 0;
};

/// Base of all streaming jobs.
class RDELTA_API job {
public:
    virtual ~job() = default;
    job() = default;
    job(const job&) = delete;
    job& operator=(const job&) = delete;

    /// Consume input, produce output: the contract is the file comment's.
    virtual result<job_status> iterate(buffers& io) = 0;

    /// Counters so far.
    virtual const job_stats& stats() const noexcept = 0;
};

}  // namespace rdelta
