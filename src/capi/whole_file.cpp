// whole_file.cpp - rs_sig_file/rs_loadsig_file/rs_delta_file/rs_patch_file: a job
// driven between two FILE*s by drive_job(), the driver of the library and the
// tool, in the steps librsync's rs_whole_run() takes. The buffer sizes (format
// reference 9.4, overridden by rs_inbuflen/rs_outbuflen) matter for output only
// in a slack delta, where each buffer of input becomes one LITERAL; they also
// decide, with the order of the steps, what a failed job has written and the
// in/out byte counts that rdiff -s prints, so the steps are librsync's exactly.
#include "capi.hpp"
#include "stdio_stream.hpp"

#include <rdelta/drive.hpp>

#include <cstdlib>

int rs_inbuflen = 0, rs_outbuflen = 0;

namespace {

// An rs_job stepped as rs_job_drive() steps it with librsync's file buffers
// (rs_infilebuf_fill, rs_outfilebuf_drain). Every step is an rs_job_iter(), so the
// statistics, the header kept for messages and the log lines are its own, and
// - the first step has no output buffer: the drain makes it after that step;
// - the end of input is flagged at the first step after a read that met the end of
//   the file, even with input left: the refill checks feof() before anything else;
// - no step is offered empty input before the end: the input buffer is refilled first;
// - a failed step writes nothing: rs_job_drive returns without draining it.
class whole_file_job final : public rdelta::job {
public:
    whole_file_job(rs_job_t* job, const rdelta::capi::stdio_source& in, bool has_output)
        : job_(job), in_(in), has_output_(has_output) {}

    rdelta::result<rdelta::job_status> iterate(rdelta::buffers& io) override {
        if (has_output_ && !out_ready_) {
            out_ready_ = true;
            auto first = step(io, false);
            if (!first || *first == rdelta::job_status::done) return first;
        }
        return step(io, has_output_);
    }
    const rdelta::job_stats& stats() const noexcept override { return job_->impl->stats(); }

private:
    rdelta::result<rdelta::job_status> step(rdelta::buffers& io, bool with_output) {
        // The first step after a read was offered its bytes before feof() was set.
        const bool fresh = in_.reads() != reads_seen_;
        reads_seen_ = in_.reads();
        const bool eof = io.eof_in || (!fresh && in_.at_end());
        if (io.avail_in == 0 && !eof) return rdelta::job_status::blocked;  // refill first
        rs_buffers_t b{};
        b.next_in = const_cast<char*>(reinterpret_cast<const char*>(io.next_in));
        b.avail_in = io.avail_in;
        b.eof_in = eof;
        if (with_output) b.next_out = reinterpret_cast<char*>(io.next_out), b.avail_out = io.avail_out;
        const rs_result r = rs_job_iter(job_, &b);
        if (r != RS_DONE && r != RS_BLOCKED) return rdelta::fail(static_cast<rdelta::errc>(r), {});  // logged
        io.next_in = reinterpret_cast<const std::uint8_t*>(b.next_in), io.avail_in = b.avail_in;
        if (with_output) io.next_out = reinterpret_cast<std::uint8_t*>(b.next_out), io.avail_out = b.avail_out;
        return r == RS_DONE ? rdelta::job_status::done : rdelta::job_status::blocked;
    }

    rs_job_t* job_;
    const rdelta::capi::stdio_source& in_;
    bool has_output_;
    bool out_ready_ = false;
    std::uint64_t reads_seen_ = 0;
};

// librsync allocates its file buffers before anything runs and aborts, with a
// CRITICAL line, when it cannot: an absurd block length makes their int sizes wrap.
// drive_job() would fail softly, so the sizes are tried librsync's way first.
void try_buffer(int size) {
    std::free(rdelta::capi::alloc_or_abort(static_cast<size_t>(size), "file buffer"));
}

// Runs the job to completion or error, then copies its statistics out and frees it.
// A job that could not be made (NULL: out of memory) fails with RS_MEM_ERROR; a
// NULL input file is an empty input.
rs_result whole_run(rs_job_t* job, FILE* in, FILE* out, int inbuflen, int outbuflen, rs_stats_t* stats) {
    if (!job) return RS_MEM_ERROR;
    job->io_counted_by_buffers = true;
    job->stats.in_bytes = job->stats.out_bytes = 0;
    const rs_result r = rdelta::capi::guarded("rs_whole_run", [&] {
        inbuflen = rs_inbuflen ? rs_inbuflen : inbuflen;
        outbuflen = rs_outbuflen ? rs_outbuflen : outbuflen;
        if (in) try_buffer(inbuflen);
        if (out) try_buffer(outbuflen);
        rdelta::capi::stdio_source source(in, static_cast<size_t>(inbuflen), &job->stats.in_bytes);
        rdelta::drive_options options;
        options.chunk = static_cast<size_t>(inbuflen);
        options.out_buffer = out ? static_cast<size_t>(outbuflen) : 1;
        options.end_on_empty_read = true;
        whole_file_job driven(job, source, out != nullptr);
        auto done = rdelta::drive_job(
            driven, source, out ? rdelta::capi::stdio_sink(out, &job->stats.out_bytes) : rdelta::byte_sink{}, options);
        if (done) return RS_DONE;
        // Errors of the job, the file reads and the writes are logged already.
        if (!done.err().message.empty())
            rdelta::capi::log(RS_LOG_ERR, "rs_whole_run", "%s", done.err().message.c_str());
        return static_cast<rs_result>(done.err().code);
    });
    if (stats) *stats = *rs_job_statistics(job);
    rs_job_free(job);
    return r;
}

// librsync computes buffer sizes in int; keep its wrap-around for absurd lengths.
int int_size(long long v) {
    return static_cast<int>(static_cast<unsigned int>(v));
}

}  // namespace

rs_result rs_sig_file(FILE* old_file, FILE* sig_file, size_t block_len, size_t strong_len, rs_magic_number sig_magic,
                      rs_stats_t* stats) {
    // Defaults from the real basis size first; the job then re-checks them.
    rs_result r = rs_sig_args(rs_file_size(old_file), &sig_magic, &block_len, &strong_len);
    if (r != RS_DONE) return r;
    const int blen = static_cast<int>(block_len), slen = static_cast<int>(strong_len);
    return whole_run(rs_sig_begin(block_len, strong_len, sig_magic), old_file, sig_file, int_size(4LL * blen),
                     int_size(12 + 4LL * (4 + slen)), stats);
}

rs_result rs_loadsig_file(FILE* sig_file, rs_signature_t** sumset, rs_stats_t* stats) {
    return whole_run(rs_loadsig_begin(sumset), sig_file, nullptr, 1024 * 16, 0, stats);
}

rs_result rs_delta_file(rs_signature_t* sig, FILE* new_file, FILE* delta_file, rs_stats_t* stats) {
    const long long blen = sig ? sig->sig.params().block_len : RS_DEFAULT_BLOCK_LEN;
    return whole_run(rs_delta_begin(sig), new_file, delta_file, int_size(blen), int_size(10 + 4 * blen), stats);
}

rs_result rs_patch_file(FILE* basis_file, FILE* delta_file, FILE* new_file, rs_stats_t* stats) {
    return whole_run(rs_patch_begin(rs_file_copy_cb, basis_file), delta_file, new_file, 64 * 1024, 64 * 1024, stats);
}
