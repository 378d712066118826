// job_api.cpp - the streaming ("push") API: rs_*_begin(), rs_job_iter(),
// rs_job_drive(), rs_job_statistics(), rs_job_free(), on top of rdelta::job.
//
// Each call takes and gives what librsync 2.3.2's takes and gives (checked against
// Debian's library call by call, tests/capi/roundtrip.c's call traces): the
// signature and delta jobs are made with librsync's pacing (core/job_pacing.hpp),
// so output held from an earlier call goes out before any input is taken, and a
// job may leave input in next_in/avail_in, which the caller offers again; loadsig
// and patch jobs take and give as librsync's do as they are. Outputs never depend
// on the chunking, except a slack delta's (empty signature), where the input
// offered when the job is ready for more becomes one LITERAL, as in librsync.
#include "c_enum.hpp"
#include "capi.hpp"
#include "delta/delta_job.hpp"
#include "match/index_access.hpp"
#include "signature/signature_job.hpp"

#include <rdelta/delta.hpp>

#include <algorithm>
#include <cstring>
#include <ctime>

using rdelta::capi::log;

const char* rs_job::name() const noexcept {
    switch (what) {
        case kind::signature: return "signature";
        case kind::loadsig: return "loadsig";
        case kind::delta: return "delta";
        case kind::patch: return "patch";
    }
    return "noop";
}

namespace {

// A job whose arguments were rejected: librsync reports bad arguments from the
// first rs_job_iter(), not from rs_*_begin().
class failed_job final : public rdelta::job {
public:
    explicit failed_job(rdelta::error e) : error_(std::move(e)) {}
    rdelta::result<rdelta::job_status> iterate(rdelta::buffers&) override { return error_; }
    const rdelta::job_stats& stats() const noexcept override { return stats_; }

private:
    rdelta::error error_;
    rdelta::job_stats stats_;
};

// COPY commands read the basis through the caller's rs_copy_cb.
class callback_basis final : public rdelta::basis_reader {
public:
    callback_basis(rs_copy_cb* cb, void* arg, bool* failed) : cb_(cb), arg_(arg), failed_(failed) {}

    rdelta::result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        size_t len = out.size();
        void* buf = out.data();
        const int r = rdelta::capi::call_client(cb_, arg_, static_cast<rs_long_t>(pos), &len, &buf);
        if (r == RS_BLOCKED || r == RS_RUNNING) {
            // Our patch job cannot suspend inside a COPY; librsync 2.3.2 cannot
            // either (it reports "job made no progress", issue #258).
            log(RS_LOG_ERR, "rs_patch_s_copying", "copy callback returned %s, which is not supported",
                r == RS_BLOCKED ? "RS_BLOCKED" : "RS_RUNNING");
            *failed_ = true;
            return rdelta::fail(rdelta::errc::internal_error, "copy callback blocked");
        }
        if (r != RS_DONE) {
            *failed_ = true;  // the callback has logged why
            return rdelta::fail(static_cast<rdelta::errc>(r), "copy callback failed");
        }
        if (len > out.size()) {
            log(RS_LOG_ERR, "rs_patch_s_copying", "copy callback returned %zu bytes, more than the %zu asked for", len,
                out.size());
            *failed_ = true;
            return rdelta::fail(rdelta::errc::internal_error, "copy callback overran");
        }
        if (len && buf != out.data()) std::memmove(out.data(), buf, len);
        return std::size_t{len};
    }

private:
    rs_copy_cb* cb_;
    void* arg_;
    bool* failed_;
};

rs_job* new_job(rs_job::kind what) {
    auto* job = new rs_job;
    job->what = what;
    job->stats.op = job->name();
    job->stats.start = std::time(nullptr);
    return job;
}

// Copy our counters into librsync's rs_stats_t (and a delta's into its signature).
void refresh_stats(rs_job* job) {
    const auto& s = job->impl->stats();
    rs_stats_t& out = job->stats;
    out.lit_cmds = static_cast<int>(s.lit_cmds);
    out.lit_bytes = s.lit_bytes;
    out.lit_cmdbytes = s.lit_cmdbytes;
    out.copy_cmds = s.copy_cmds;
    out.copy_bytes = s.copy_bytes;
    out.copy_cmdbytes = s.copy_cmdbytes;
    out.false_matches = static_cast<int>(s.false_matches);
    out.sig_blocks = s.sig_blocks;
    out.block_len = s.block_len;
    if (!job->io_counted_by_buffers) {
        out.in_bytes = s.in_bytes;
        out.out_bytes = s.out_bytes;
    }
    if (job->what == rs_job::kind::delta && job->sig) {
        job->sig->searches = job->base_searches + s.searches;
        job->sig->matches = job->base_matches + s.matches;
        job->sig->weak_compares = job->base_weak + s.weak_hits;
        job->sig->strong_calcs = job->base_calcs + s.strong_calcs;
    }
}

}  // namespace

namespace {

rs_job* sig_begin(size_t block_len, size_t strong_len, int sig_magic) {
    rs_job* job = new_job(rs_job::kind::signature);
    // Resolved with the basis size unknown, as librsync's job re-validates:
    // (0, 0, 0) gives RabinKarp + BLAKE2, 2048-byte blocks, 32-byte sums.
    rdelta::sig_request req;
    req.magic = static_cast<std::uint32_t>(sig_magic);
    req.block_len = block_len;
    req.strong_len = static_cast<std::int64_t>(strong_len);
    auto resolved = rdelta::resolve_sig_params(req);
    if (resolved)
        job->impl =
            rdelta::detail::make_signature_job_paced(resolved->params, {}, rdelta::detail::job_pacing::librsync);
    else
        job->impl = std::make_unique<failed_job>(std::move(resolved).err());
    return job;
}

rs_job* loadsig_begin(rs_signature_t** sig) {
    rs_job* job = new_job(rs_job::kind::loadsig);
    *sig = new rs_signature;  // the caller owns it (rs_free_sumset) even if loading fails
    job->sig = *sig;
    job->impl = rdelta::make_loadsig_job(&(*sig)->sig);
    return job;
}

rs_job* delta_begin(rs_signature_t* sig) {
    static const rdelta::signature empty;
    rs_job* job = new_job(rs_job::kind::delta);
    job->sig = sig;
    if (sig && sig->sig.block_count() > 0 && !rdelta::detail::index_access::of(sig->sig)) {
        // librsync asserts (abort) here; we fail the job instead.
        job->impl = std::make_unique<failed_job>(
            rdelta::fail(rdelta::errc::param_error, "signature has no hash table: call rs_build_hash_table() first"));
        return job;
    }
    if (sig) {
        job->base_searches = sig->searches, job->base_matches = sig->matches;
        job->base_weak = sig->weak_compares, job->base_calcs = sig->strong_calcs;
    }
    rdelta::delta_options options;
    options.checksum = false;     // librsync's exact bytes: nothing after END
    options.max_strong_work = 0;  // librsync has no work budget
    // Each buffer is scanned as it comes, so the statistics (strong sums computed) are librsync's.
    job->impl = rdelta::detail::make_delta_job_gathering(sig ? sig->sig : empty, options, 0,
                                                         rdelta::detail::job_pacing::librsync);
    return job;
}

rs_job* patch_begin(rs_copy_cb* copy_cb, void* copy_arg) {
    rs_job* job = new_job(rs_job::kind::patch);
    job->basis = std::make_unique<callback_basis>(copy_cb, copy_arg, &job->callback_failed);
    job->impl = rdelta::make_patch_job(*job->basis);
    return job;
}

rs_result job_iter(rs_job_t* job, rs_buffers_t* buffers) {
    const size_t orig_in = buffers->avail_in, orig_out = buffers->avail_out;
    const char* const first_in = buffers->next_in;
    rdelta::buffers io;
    io.next_in = reinterpret_cast<const std::uint8_t*>(buffers->next_in);
    io.avail_in = buffers->avail_in;
    io.eof_in = buffers->eof_in != 0;
    io.next_out = reinterpret_cast<std::uint8_t*>(buffers->next_out);
    io.avail_out = buffers->avail_out;

    auto status = job->impl->iterate(io);

    const size_t consumed = orig_in - io.avail_in;
    buffers->next_in += consumed;
    buffers->avail_in = io.avail_in;
    buffers->next_out += orig_out - io.avail_out;
    buffers->avail_out = io.avail_out;
    // Keep the header bytes: librsync's error texts quote them.
    const size_t keep = std::min(sizeof job->head - job->head_len, consumed);
    if (keep) std::memcpy(job->head + job->head_len, first_in, keep), job->head_len += keep;
    refresh_stats(job);

    if (!status) {
        job->stats.end = std::time(nullptr);
        rdelta::capi::report_failure(*job, status.err());
        return static_cast<rs_result>(status.err().code);
    }
    if (orig_in && orig_out && orig_in == buffers->avail_in && orig_out == buffers->avail_out) {
        log(RS_LOG_ERR, "rs_job_iter",
            "internal error: job made no progress [orig_in=%zu, orig_out=%zu, final_in=%zu, final_out=%zu]", orig_in,
            orig_out, buffers->avail_in, buffers->avail_out);
        return RS_INTERNAL_ERROR;
    }
    if (*status == rdelta::job_status::done) {
        job->stats.end = std::time(nullptr);
        return RS_DONE;
    }
    return RS_BLOCKED;
}

}  // namespace

// The exported functions: nothing they call may throw into a C caller.

rs_job_t* rs_sig_begin(size_t block_len, size_t strong_len, rs_magic_number sig_magic) {
    const int magic = rdelta::capi::c_int(sig_magic);  // any int a C caller passes
    return rdelta::capi::guarded_begin("rs_sig_begin", [&] { return sig_begin(block_len, strong_len, magic); });
}

rs_job_t* rs_loadsig_begin(rs_signature_t** sig) {
    *sig = nullptr;
    return rdelta::capi::guarded_begin("rs_loadsig_begin", [&] { return loadsig_begin(sig); });
}

rs_job_t* rs_delta_begin(rs_signature_t* sig) {
    return rdelta::capi::guarded_begin("rs_delta_begin", [&] { return delta_begin(sig); });
}

rs_job_t* rs_patch_begin(rs_copy_cb* copy_cb, void* copy_arg) {
    return rdelta::capi::guarded_begin("rs_patch_begin", [&] { return patch_begin(copy_cb, copy_arg); });
}

rs_result rs_job_iter(rs_job_t* job, rs_buffers_t* buffers) {
    return rdelta::capi::guarded("rs_job_iter", [&] { return job_iter(job, buffers); });
}

// librsync's own loop, kept as it is rather than built on rdelta::drive_job: here the
// caller's callbacks own the buffers. in_cb and out_cb receive the rs_buffers_t and
// move next_in/next_out themselves (they may fill part of a buffer, keep output
// back, or stop the job with their own result), whereas drive_job owns its buffers
// and pulls whole chunks from a byte_source. The whole-file calls, which own their
// buffers, run on drive_job (whole_file.cpp) in this loop's steps.
rs_result rs_job_drive(rs_job_t* job, rs_buffers_t* buf, rs_driven_cb in_cb, void* in_opaque, rs_driven_cb out_cb,
                       void* out_opaque) {
    std::memset(buf, 0, sizeof *buf);
    rs_result result;
    do {
        if (!buf->eof_in && in_cb) {
            const int r = rdelta::capi::call_client(in_cb, job, buf, in_opaque);
            if (r != RS_DONE) return rdelta::capi::as_result(r);  // the client's own code, as librsync
        }
        result = rs_job_iter(job, buf);
        if (result != RS_DONE && result != RS_BLOCKED) return result;  // pending output is not drained
        if (out_cb) {
            const int r = rdelta::capi::call_client(out_cb, job, buf, out_opaque);
            if (r != RS_DONE) return rdelta::capi::as_result(r);
        }
    } while (result != RS_DONE);
    return result;
}

const rs_stats_t* rs_job_statistics(rs_job_t* job) {
    return &job->stats;
}

rs_result rs_job_free(rs_job_t* job) {
    delete job;
    return RS_DONE;
}
