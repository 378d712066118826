/* client_codes.c - codes a client makes up: callbacks returning results of their
 * own and magic numbers beyond rs_magic_number's, for roundtrip.c (built into both
 * of its programs, on our library and on Debian's).
 *
 * librsync hands a callback's result back to the caller as it is: rs_job_drive
 * returns what in_cb or out_cb returned when it is not RS_DONE, and a patch job
 * whose copy callback fails ends with that callback's result (and logs "patch job
 * failed" with rs_strerror of it). A client may use codes beyond rs_result's
 * enumerators, so each case returns 1000 (and RS_IO_ERROR, one of librsync's) and
 * writes the results and log lines to log.txt, which compare.py compares with
 * Debian's library's. A magic number with the top bit set is no format: rs_sig_args
 * and the signature job refuse it. So are trace levels beyond rs_loglevel's. */
#include "roundtrip.h"

#include <librsync.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The code each callback returns (passed as its opaque argument). */
typedef struct {
    int code;
} client_code_t;

static rs_result code_of(void* opaque) {
    return (rs_result)((const client_code_t*)opaque)->code;
}

static rs_result failing_copy_cb(void* opaque, rs_long_t pos, size_t* len, void** buf) {
    (void)pos;
    (void)buf;
    *len = 0;
    return code_of(opaque);
}

static rs_result failing_driven_cb(rs_job_t* job, rs_buffers_t* b, void* opaque) {
    (void)job;
    (void)b;
    return code_of(opaque);
}

/* The input side gives the whole input at once and says it ended. */
static rs_result all_input_cb(rs_job_t* job, rs_buffers_t* b, void* opaque) {
    static char none[1];
    (void)job;
    (void)opaque;
    b->next_in = none;
    b->avail_in = 0;
    b->eof_in = 1;
    return RS_DONE;
}

static void copy_callback_fails(int code) {
    /* "hi", then COPY 3 bytes from position 2, END. */
    static const unsigned char delta[] = {0x72, 0x73, 0x02, 0x36, 0x02, 'h', 'i', 0x45, 2, 3, 0};
    client_code_t c = {code};
    buf_t in = {0}, out = {0};
    rs_job_t* job = rs_patch_begin(failing_copy_cb, &c);
    buf_add(&in, delta, sizeof delta);
    fprintf(log_file, "-- patch, copy callback returns %d\n", code);
    fprintf(log_file, "result %d, %zu bytes out\n", (int)run_job(job, &in, 64, 64, &out), out.n);
    rs_job_free(job);
    free(in.p);
    free(out.p);
}

static void driven_callback_fails(int code, int on_output) {
    client_code_t c = {code};
    rs_buffers_t b;
    rs_job_t* job = rs_sig_begin(64, 8, RS_BLAKE2_SIG_MAGIC);
    rs_result r = on_output ? rs_job_drive(job, &b, all_input_cb, NULL, failing_driven_cb, &c)
                            : rs_job_drive(job, &b, failing_driven_cb, &c, NULL, NULL);
    fprintf(log_file, "-- rs_job_drive, %s callback returns %d\n", on_output ? "output" : "input", code);
    fprintf(log_file, "result %d\n", (int)r);
    rs_job_free(job);
}

static void magic_refused(unsigned magic) {
    static char out[64];
    rs_magic_number m = (rs_magic_number)magic;
    size_t block_len = 0, strong_len = 0;
    rs_buffers_t b;
    rs_job_t* job;
    fprintf(log_file, "-- magic %#x\n", magic);
    fprintf(log_file, "rs_sig_args result %d\n", (int)rs_sig_args(1000, &m, &block_len, &strong_len));
    job = rs_sig_begin(64, 8, (rs_magic_number)magic);
    memset(&b, 0, sizeof b);
    b.eof_in = 1;
    b.next_out = out;
    b.avail_out = sizeof out;
    fprintf(log_file, "job result %d\n", (int)rs_job_iter(job, &b));
    rs_job_free(job);
}

/* A trace level beyond rs_loglevel's: an error line is printed or not as on
 * Debian's library. */
static void trace_level_beyond(int level) {
    rs_magic_number m = (rs_magic_number)0x80000000u;
    size_t block_len = 0, strong_len = 0;
    fprintf(log_file, "-- trace level %d\n", level);
    rs_trace_set_level((rs_loglevel)level);
    fprintf(log_file, "rs_sig_args result %d\n", (int)rs_sig_args(1000, &m, &block_len, &strong_len));
    rs_trace_set_level(RS_LOG_INFO);
}

void client_codes(void) {
    static const int codes[] = {1000, RS_IO_ERROR};
    size_t i;
    fprintf(log_file, "== client codes\n");
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        copy_callback_fails(codes[i]);
        driven_callback_fails(codes[i], 0);
        driven_callback_fails(codes[i], 1);
    }
    magic_refused(0x80000000u);
    magic_refused(0xffffffffu);
    trace_level_beyond(-1);
    trace_level_beyond(1000);
}
