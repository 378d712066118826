// whole_file.cpp - rs_sig_file/rs_loadsig_file/rs_delta_file/rs_patch_file: a job
// driven through stdio buffers as librsync's rs_whole_run() does. The buffer sizes
// (format reference 9.4, overridden by rs_inbuflen/rs_outbuflen) matter for output
// only in a slack delta, where each buffer of input becomes one LITERAL; the
// buffers also count the in/out bytes that rdiff -s prints.
#include "capi.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int rs_inbuflen = 0, rs_outbuflen = 0;

namespace {

struct file_buffer {
    FILE* f;
    char* buf;
    size_t len;

    // The size arrives as librsync computes it, in int (so 4 x a huge block length
    // wraps negative and the allocation fails and aborts, as rdiff does).
    file_buffer(FILE* file, int size)
        : f(file), buf(static_cast<char*>(rdelta::capi::alloc_or_abort(static_cast<size_t>(size), "file buffer"))),
          len(static_cast<size_t>(size)) {}
    ~file_buffer() { std::free(buf); }
    file_buffer(const file_buffer&) = delete;
    file_buffer& operator=(const file_buffer&) = delete;
};

// Refill only when the job has taken everything; a full fread() per refill, so a
// slack delta's literals are buffer-sized whether the input is a file or a pipe.
rs_result fill(rs_job_t* job, rs_buffers_t* buf, void* opaque) {
    auto* fb = static_cast<file_buffer*>(opaque);
    if (buf->eof_in || (buf->eof_in = std::feof(fb->f))) return RS_DONE;
    if (buf->avail_in) return RS_DONE;
    const size_t got = std::fread(fb->buf, 1, fb->len, fb->f);
    if (got == 0) {
        if (std::feof(fb->f)) {
            buf->eof_in = 1;
            return RS_DONE;
        }
        if (std::ferror(fb->f))
            rdelta::capi::log(RS_LOG_ERR, "rs_infilebuf_fill", "error filling buf from file: %s",
                              std::strerror(errno));
        else
            rdelta::capi::log(RS_LOG_ERR, "rs_infilebuf_fill",
                              "no error bit, but got %zu return when trying to read", got);
        return RS_IO_ERROR;
    }
    buf->next_in = fb->buf;
    buf->avail_in = got;
    job->stats.in_bytes += static_cast<rs_long_t>(got);
    return RS_DONE;
}

rs_result drain(rs_job_t* job, rs_buffers_t* buf, void* opaque) {
    auto* fb = static_cast<file_buffer*>(opaque);
    if (!buf->next_out) {
        buf->next_out = fb->buf;
        buf->avail_out = fb->len;
        return RS_DONE;
    }
    const size_t present = static_cast<size_t>(buf->next_out - fb->buf);
    if (present > 0) {
        const size_t written = std::fwrite(fb->buf, 1, present, fb->f);
        if (written != present) {
            rdelta::capi::log(RS_LOG_ERR, "rs_outfilebuf_drain", "error draining buf to file: %s",
                              std::strerror(errno));
            return RS_IO_ERROR;
        }
        buf->next_out = fb->buf;
        buf->avail_out = fb->len;
        job->stats.out_bytes += static_cast<rs_long_t>(written);
    }
    return RS_DONE;
}

// Runs the job to completion or error, then copies its statistics out and frees it.
// A job that could not be made (NULL: out of memory) fails with RS_MEM_ERROR.
rs_result whole_run(rs_job_t* job, FILE* in, FILE* out, int inbuflen, int outbuflen, rs_stats_t* stats) {
    if (!job) return RS_MEM_ERROR;
    job->io_counted_by_buffers = true;
    job->stats.in_bytes = job->stats.out_bytes = 0;
    const rs_result r = rdelta::capi::guarded("rs_whole_run", [&] {
        inbuflen = rs_inbuflen ? rs_inbuflen : inbuflen;
        outbuflen = rs_outbuflen ? rs_outbuflen : outbuflen;
        std::unique_ptr<file_buffer> in_fb, out_fb;
        if (in) in_fb = std::make_unique<file_buffer>(in, inbuflen);
        if (out) out_fb = std::make_unique<file_buffer>(out, outbuflen);
        rs_buffers_t buf;
        return rs_job_drive(job, &buf, in_fb ? fill : nullptr, in_fb.get(), out_fb ? drain : nullptr, out_fb.get());
    });
    if (stats) *stats = *rs_job_statistics(job);
    rs_job_free(job);
    return r;
}

// librsync computes buffer sizes in int; keep its wrap-around for absurd lengths.
int int_size(long long v) { return static_cast<int>(static_cast<unsigned int>(v)); }

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
    return whole_run(rs_patch_begin(rs_file_copy_cb, basis_file), delta_file, new_file, 64 * 1024, 64 * 1024,
                     stats);
}
