// rdelta/drive.hpp - running a job between a source and a sink: the one loop the
// tool, the one-shot calls and the file functions all use.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>
#include <rdelta/io.hpp>
#include <rdelta/job.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>

namespace rdelta {

/// Push model: the caller has the input in pieces (memory, a file read at random,
/// a network buffer) and offers them in order; all output goes to a sink.
class RDELTA_API job_pump {
public:
    /// `j` must outlive the pump; `out` receives every output byte, in order.
    job_pump(job& j, byte_sink out, std::size_t out_buffer = std::size_t{256} << 10);

    /// Offer `in` (the last piece when `eof`). Returns once the job has taken all
    /// of it and drained its output, with done when the job has finished. The
    /// piece is offered whole: slack deltas (empty signature) follow this chunking.
    result<job_status> push(std::span<const std::uint8_t> in, bool eof);

private:
    job& job_;
    byte_sink out_;
    std::unique_ptr<std::uint8_t[]> buf_;
    std::size_t size_;
};

/// How drive_job() runs a job.
struct RDELTA_API drive_options {
    /// Input read per step, each chunk filled completely unless the input ends.
    std::size_t chunk = std::size_t{8} << 20;
    /// Called after every chunk with the job's counters (progress lines); may be empty.
    std::function<void(const job_stats&)> progress;
    /// Polled after every chunk: returning true abandons the job with io_error
    /// ("cancelled"); may be empty.
    std::function<bool()> cancelled;
    /// Output space the job is given at each step (its output does not depend on it).
    std::size_t out_buffer = std::size_t{256} << 10;
    /// When true, the input ends only at a read that returns nothing: a short read
    /// is offered as it is, and the end follows with the next, empty, read. This is
    /// how librsync's whole-file calls see a file (the C API keeps their contract).
    bool end_on_empty_read = false;
};

/// Run `j` until it is done, reading `in` chunk by chunk and handing all output to
/// `out`. A source that states its size gets a buffer no larger than it needs.
RDELTA_API result<void> drive_job(job& j, byte_source& in, const byte_sink& out, const drive_options& options = {});

}  // namespace rdelta
