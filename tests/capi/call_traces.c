/* call_traces.c - what each rs_job_iter() call takes and gives, for roundtrip.c
 * (built into both of its programs, on our library and on Debian's). */
#include "roundtrip.h"

#include <librsync.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- call traces: what each rs_job_iter() call takes and gives ----------- */

/* A client such as burp offers input a block (or a byte) at a time, takes its
 * output out of a fixed buffer after every call, and waits for its peer when a
 * call gives nothing, so a library that holds output back for a later call, or
 * takes no input while the other takes some, stalls it. Each case drives one job
 * so and writes trace-NAME-iIN-oOUT.txt: one line per call, "CALL in CONSUMED out
 * PRODUCED RESULT" (a run of equal calls on one line, "FIRST-LAST ..."), then the
 * total output. Input the job leaves is offered again; eof_in comes with the last
 * piece. compare.py compares these traces with Debian's library's. */

static const char* result_name(rs_result r) {
    static char other[16];
    switch (r) {
        case RS_DONE: return "DONE";
        case RS_BLOCKED: return "BLOCKED";
        case RS_RUNNING: return "RUNNING";
        default: snprintf(other, sizeof other, "error %d", (int)r); return other;
    }
}

/* A trace line for calls first..last, which all took `in` bytes, gave `out` and returned r. */
static void trace_line(FILE* f, long first, long last, size_t in, size_t out, rs_result r) {
    if (first == last)
        fprintf(f, "%ld in %zu out %zu %s\n", first, in, out, result_name(r));
    else
        fprintf(f, "%ld-%ld in %zu out %zu %s\n", first, last, in, out, result_name(r));
}

static rs_result trace_job(const char* name, rs_job_t* job, const buf_t* in, size_t in_step, size_t out_size,
                           buf_t* out) {
    char fname[300];
    rs_buffers_t b;
    size_t pos = 0, last_in = 0, last_out = 0;
    long call, first = 0;
    rs_result r = RS_BLOCKED, last_r = RS_BLOCKED;
    char* window = malloc(out_size);
    FILE* f;

    snprintf(fname, sizeof fname, "trace-%s-i%zu-o%zu.txt", name, in_step, out_size);
    f = fopen(path_of(fname), "w");
    if (!f || !window) {
        fail("cannot write %s", fname);
        exit(1);
    }
    memset(&b, 0, sizeof b);
    for (call = 1; call <= 1000000; call++) {
        size_t offered, produced;
        if (b.avail_in == 0 && pos < in->n) {
            b.next_in = (char*)in->p + pos;
            b.avail_in = in->n - pos < in_step ? in->n - pos : in_step;
            pos += b.avail_in;
        }
        b.eof_in = pos == in->n;
        b.next_out = window;
        b.avail_out = out_size;
        offered = b.avail_in;
        r = rs_job_iter(job, &b);
        produced = out_size - b.avail_out;
        buf_add(out, window, produced);
        if (first && (offered - b.avail_in != last_in || produced != last_out || r != last_r)) {
            trace_line(f, first, call - 1, last_in, last_out, last_r);
            first = 0;
        }
        if (!first) first = call, last_in = offered - b.avail_in, last_out = produced, last_r = r;
        if (r != RS_BLOCKED) break;
    }
    trace_line(f, first, call > 1000000 ? 1000000 : call, last_in, last_out, last_r);
    fprintf(f, "output %zu bytes\n", out->n);
    if (r == RS_BLOCKED) fail("%s: the job did not finish in a million calls", fname);
    fclose(f);
    free(window);
    return r;
}

/* What a traced job is and what it must give. */
typedef struct {
    enum { T_SIG, T_LOADSIG, T_DELTA, T_PATCH } kind;
    size_t block_len, strong_len; /* T_SIG: the job's parameters */
    rs_magic_number magic;
    rs_signature_t* sig; /* T_DELTA */
    const buf_t* basis;  /* T_PATCH */
    const buf_t* expect; /* the output every chunking must give (NULL: any) */
} traced_t;

/* One case with input a block, a byte and 1000 bytes (blocks and a piece) per
 * call, each into 1-byte, one-block and large output buffers. */
static void trace_cases(const char* name, const traced_t* t, const buf_t* in) {
    const size_t in_steps[] = {t->block_len, 1, 1000}, outs[] = {1, t->block_len, 65536};
    unsigned i, o;
    for (i = 0; i < 3; i++)
        for (o = 0; o < 3; o++) {
            buf_t out = {0};
            rs_signature_t* loaded = NULL;
            mem_basis_t mb = {t->basis, 0};
            rs_job_t* job = t->kind == T_SIG       ? rs_sig_begin(t->block_len, t->strong_len, t->magic)
                            : t->kind == T_LOADSIG ? rs_loadsig_begin(&loaded)
                            : t->kind == T_DELTA   ? rs_delta_begin(t->sig)
                                                   : rs_patch_begin(mem_copy_cb, &mb);
            if (trace_job(name, job, in, in_steps[i], outs[o], &out) != RS_DONE ||
                (t->expect && !buf_eq(&out, t->expect)))
                fail("call traces: %s, input %zu, output %zu", name, in_steps[i], outs[o]);
            rs_job_free(job);
            if (loaded) rs_free_sumset(loaded);
            free(out.p);
        }
}

/* A job run to the end in one call, for the output the traced runs must equal. */
static buf_t one_call(rs_job_t* job, const buf_t* in) {
    buf_t out = {0};
    if (run_job(job, in, in->n ? in->n : 1, 1 << 16, &out) != RS_DONE) fail("call traces: a job in one call");
    rs_job_free(job);
    return out;
}

static rs_signature_t* load_signature(const buf_t* sig) {
    rs_signature_t* s;
    rs_job_t* job = rs_loadsig_begin(&s);
    if (run_job(job, sig, sig->n, 1, NULL) != RS_DONE || rs_build_hash_table(s) != RS_DONE)
        fail("call traces: loading a signature");
    rs_job_free(job);
    return s;
}

void call_traces(void) {
    static const rs_magic_number magics[] = {RS_MD4_SIG_MAGIC, RS_BLAKE2_SIG_MAGIC, RS_RK_MD4_SIG_MAGIC,
                                             RS_RK_BLAKE2_SIG_MAGIC};
    static const unsigned char empty_sig[12] = {0x72, 0x73, 0x01, 0x47, 0, 0, 0, 64, 0, 0, 0, 32};
    /* 3000 bytes: whole blocks of 100, a short last block of 64. */
    buf_t basis = random_bytes(3000), newf = {0}, empty = {0}, none = {0};
    unsigned m, k;

    /* The new file: copies of the basis (one out of order, one not on a block
     * boundary) between literals, the last one short of a block. */
    {
        buf_t lit = random_bytes(700);
        buf_add(&newf, basis.p, 1000);
        buf_add(&newf, lit.p, 150);
        buf_add(&newf, basis.p + 1700, 900);
        buf_add(&newf, basis.p + 129, 400);
        buf_add(&newf, lit.p + 150, 500);
        buf_add(&newf, basis.p + 2950, 50);
        buf_add(&newf, lit.p + 650, 30);
        free(lit.p);
    }
    fprintf(log_file, "== call traces\n");
    for (m = 0; m < 4; m++)
        for (k = 0; k < 2; k++) {
            char name[100], label[80];
            traced_t t;
            buf_t sig, delta;

            memset(&t, 0, sizeof t);
            t.block_len = k ? 100 : 64;
            t.strong_len = k ? 0 : 8;
            t.magic = magics[m];
            t.basis = &basis;
            snprintf(label, sizeof label, "%s-%s-b%zu", hash_name(t.magic), roll_name(t.magic), t.block_len);
            sig = one_call(rs_sig_begin(t.block_len, t.strong_len, t.magic), &basis);
            t.sig = load_signature(&sig);
            delta = one_call(rs_delta_begin(t.sig), &newf);

            snprintf(name, sizeof name, "sig-%s", label);
            t.kind = T_SIG, t.expect = &sig;
            trace_cases(name, &t, &basis);
            snprintf(name, sizeof name, "loadsig-%s", label);
            t.kind = T_LOADSIG, t.expect = &none;
            trace_cases(name, &t, &sig);
            snprintf(name, sizeof name, "delta-%s", label);
            t.kind = T_DELTA, t.expect = &delta;
            trace_cases(name, &t, &newf);
            snprintf(name, sizeof name, "patch-%s", label);
            t.kind = T_PATCH, t.expect = &newf;
            trace_cases(name, &t, &delta);

            rs_free_sumset(t.sig);
            free(sig.p);
            free(delta.p);
        }

    /* A delta on an empty signature: one LITERAL per call's input, so the output
     * depends on the chunking (its length is in the trace). */
    buf_add(&empty, empty_sig, sizeof empty_sig);
    {
        traced_t t;
        memset(&t, 0, sizeof t);
        t.kind = T_DELTA, t.block_len = 64, t.sig = load_signature(&empty);
        trace_cases("delta-slack", &t, &newf);
        {
            /* Its LITERAL's bytes are taken as they are copied out: input that is
             * not offered again ends the job (result and log lines compared). */
            rs_job_t* job = rs_delta_begin(t.sig);
            rs_buffers_t b;
            char window[100];
            int k;
            memset(&b, 0, sizeof b);
            b.next_in = (char*)newf.p, b.avail_in = 100;
            for (k = 0; k < 2; k++) {
                rs_result r;
                b.next_out = window, b.avail_out = k ? sizeof window : 10;
                if (k == 1) b.avail_in = 0, b.eof_in = 1;
                r = rs_job_iter(job, &b);
                fprintf(log_file, "slack delta, input not offered again: call %d result %d, %zu bytes out\n", k, (int)r,
                        (size_t)(b.next_out - window));
            }
            rs_job_free(job);
        }
        rs_free_sumset(t.sig);
    }
    free(empty.p);
    free(basis.p);
    free(newf.p);
}
