/* bad_inputs.c - malformed signatures and deltas, and bad signature parameters:
 * the result codes and trace lines each leads to, for roundtrip.c (built into both
 * of its programs, on our library and on Debian's; compare.py compares the logs). */
#include "roundtrip.h"

#include <librsync.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bad inputs: result codes and trace lines ---------------------------- */

static void bad_signature(const char* what, const unsigned char* bytes, size_t n) {
    buf_t in = {0};
    rs_signature_t* s;
    rs_job_t* job = rs_loadsig_begin(&s);
    rs_result r;
    buf_add(&in, bytes, n);
    fprintf(log_file, "-- loadsig %s\n", what);
    r = run_job(job, &in, 5, 0, NULL);
    fprintf(log_file, "result %d\n", (int)r);
    rs_job_free(job);
    rs_free_sumset(s);
    free(in.p);
}

static void bad_delta(const char* what, const unsigned char* bytes, size_t n) {
    buf_t in = {0}, out = {0}, basis = {0};
    mem_basis_t mb = {&basis, 0};
    rs_job_t* job = rs_patch_begin(mem_copy_cb, &mb);
    rs_result r;
    buf_add(&basis, "0123456789", 10);
    buf_add(&in, bytes, n);
    fprintf(log_file, "-- patch %s\n", what);
    r = run_job(job, &in, 3, 4, &out);
    fprintf(log_file, "result %d, %zu bytes out\n", (int)r, out.n);
    rs_job_free(job);
    free(in.p);
    free(out.p);
    free(basis.p);
}

void bad_inputs(void) {
    static const unsigned char sig_short[] = {0x72, 0x73, 0x01, 0x47, 0, 0};
    static const unsigned char sig_block0[] = {0x72, 0x73, 0x01, 0x47, 0, 0, 0, 0, 0, 0, 0, 8};
    static const unsigned char sig_strong33[] = {0x72, 0x73, 0x01, 0x47, 0, 0, 1, 0, 0, 0, 0, 33};
    static const unsigned char sig_magic[] = {0x72, 0x73, 0x01, 0x48, 0, 0, 1, 0, 0, 0, 0, 8};
    static const unsigned char sig_delta[] = {0x72, 0x73, 0x02, 0x36, 0, 0, 1, 0, 0, 0, 0, 8};
    static const unsigned char sig_md4_17[] = {0x72, 0x73, 0x01, 0x46, 0, 0, 1, 0, 0, 0, 0, 17};
    static const unsigned char sig_trunc[] = {0x72, 0x73, 0x01, 0x46, 0, 0, 1, 0, 0, 0, 0, 4, 1, 2, 3, 4, 5};
    static const unsigned char sig_trail[] = {0x72, 0x73, 0x01, 0x46, 0, 0, 1, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 9, 9};
    static const unsigned char d_magic[] = {0x72, 0x73, 0x02, 0x37, 0};
    static const unsigned char d_short[] = {0x72, 0x73, 0x02};
    static const unsigned char d_noend[] = {0x72, 0x73, 0x02, 0x36, 0x02, 'a', 'b'};
    static const unsigned char d_bogus[] = {0x72, 0x73, 0x02, 0x36, 0x55, 0};
    static const unsigned char d_lit0[] = {0x72, 0x73, 0x02, 0x36, 0x41, 0, 0};
    static const unsigned char d_littrunc[] = {0x72, 0x73, 0x02, 0x36, 0x05, 'a', 'b'};
    static const unsigned char d_copy0[] = {0x72, 0x73, 0x02, 0x36, 0x45, 0, 0, 0};
    static const unsigned char d_copyneg[] = {0x72, 0x73, 0x02, 0x36, 0x51, 0xff, 0xff, 0xff,
                                              0xff, 0xff, 0xff, 0xff, 0xff, 1,    0};
    static const unsigned char d_pastend[] = {0x72, 0x73, 0x02, 0x36, 0x45, 8, 5, 0};
    static const unsigned char d_ok[] = {0x72, 0x73, 0x02, 0x36, 0x02, 'h', 'i', 0x45, 2, 3, 0, 0xff, 0xff};
    rs_job_t* job;
    rs_buffers_t b;
    char out[64];
    int k;

    fprintf(log_file, "== errors\n");
    bad_signature("empty", sig_short, 0);
    bad_signature("short header", sig_short, sizeof sig_short);
    bad_signature("block_len 0", sig_block0, sizeof sig_block0);
    bad_signature("strong_len 33", sig_strong33, sizeof sig_strong33);
    bad_signature("unknown magic", sig_magic, sizeof sig_magic);
    bad_signature("delta magic", sig_delta, sizeof sig_delta);
    bad_signature("md4 strong_len 17", sig_md4_17, sizeof sig_md4_17);
    bad_signature("truncated record", sig_trunc, sizeof sig_trunc);
    bad_signature("trailing bytes", sig_trail, sizeof sig_trail);
    bad_delta("wrong magic", d_magic, sizeof d_magic);
    bad_delta("short magic", d_short, sizeof d_short);
    bad_delta("no END", d_noend, sizeof d_noend);
    bad_delta("bogus command", d_bogus, sizeof d_bogus);
    bad_delta("literal length 0", d_lit0, sizeof d_lit0);
    bad_delta("truncated literal", d_littrunc, sizeof d_littrunc);
    bad_delta("copy length 0", d_copy0, sizeof d_copy0);
    bad_delta("negative copy position", d_copyneg, sizeof d_copyneg);
    bad_delta("copy past the basis", d_pastend, sizeof d_pastend);
    bad_delta("fine, bytes after END", d_ok, sizeof d_ok);

    /* Bad signature parameters are reported by rs_job_iter, each call. */
    fprintf(log_file, "-- signature strong_len 40\n");
    job = rs_sig_begin(16, 40, RS_BLAKE2_SIG_MAGIC);
    memset(&b, 0, sizeof b);
    b.eof_in = 1;
    b.next_out = out;
    b.avail_out = sizeof out;
    for (k = 0; k < 2; k++) fprintf(log_file, "result %d\n", (int)rs_job_iter(job, &b));
    rs_job_free(job);
    fprintf(log_file, "-- signature md4 strong_len 17\n");
    job = rs_sig_begin(16, 17, RS_MD4_SIG_MAGIC);
    fprintf(log_file, "result %d\n", (int)rs_job_iter(job, &b));
    rs_job_free(job);
    fprintf(log_file, "-- signature bad magic\n");
    job = rs_sig_begin(16, 8, (rs_magic_number)0x12345678);
    fprintf(log_file, "result %d\n", (int)rs_job_iter(job, &b));
    rs_job_free(job);
}
