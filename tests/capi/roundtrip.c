/* roundtrip.c - exercises the librsync 2.3.2 C API through Debian's <librsync.h>.
 *
 *     roundtrip OUTDIR [--ours-only]
 *
 * Built twice by meson: linked to our librsync.so.2 and to Debian's. Each copy
 * checks itself (every chunking of the job API and the whole-file API must agree,
 * patches must rebuild the new file) and writes what it made to OUTDIR: signatures,
 * deltas, a log of every trace line and result code (bad_inputs.c, client_codes.c),
 * utils.txt (utilities.c), and the bytes each rs_job_iter() call took and gave
 * (trace-*.txt, call_traces.c). compare.py then
 * requires the two OUTDIRs to be identical (up to timings and the hash-table
 * counters librsync prints) and the signatures and deltas to equal /usr/bin/rdiff's
 * for the commands listed in OUTDIR/manifest.txt, one a line:
 * "ACTION OUTPUT INPUT... [rdiff options]" (one input for signature, two for delta).
 * --ours-only adds checks of where our library differs from Debian's on purpose.
 * Exit status: 0 on success, 1 with "FAIL ..." lines on stderr. */
#include "roundtrip.h"

#include <librsync.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* outdir;
FILE* log_file;
static FILE* manifest;
static int failures;

void fail(const char* fmt, ...) {
    va_list va;
    va_start(va, fmt);
    fputs("FAIL ", stderr);
    vfprintf(stderr, fmt, va);
    fputc('\n', stderr);
    va_end(va);
    failures++;
}

/* Every library log line goes to log.txt, so both libraries' lines are compared. */
static void trace_to_log(rs_loglevel level, char const* msg) {
    fprintf(log_file, "[%d] %s", (int)level, msg);
}

/* ---- byte buffers and files ------------------------------------------- */

void buf_add(buf_t* b, const void* p, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}

int buf_eq(const buf_t* a, const buf_t* b) {
    return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

char* path_of(const char* name) {
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    return path;
}

static void write_file(const char* name, const buf_t* b) {
    FILE* f = fopen(path_of(name), "wb");
    if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f)) {
        fail("cannot write %s", name);
        exit(1);
    }
}

static buf_t read_file(const char* name) {
    buf_t b = {0};
    char chunk[65536];
    size_t n;
    FILE* f = fopen(path_of(name), "rb");
    if (!f) {
        fail("cannot read %s", name);
        exit(1);
    }
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_add(&b, chunk, n);
    fclose(f);
    return b;
}

/* ---- deterministic inputs ---------------------------------------------- */

static unsigned long long rng = 88172645463325252ULL;

static unsigned char next_byte(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned char)(rng >> 24);
}

buf_t random_bytes(size_t n) {
    buf_t b = {0};
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char c = next_byte();
        buf_add(&b, &c, 1);
    }
    return b;
}

/* The new file: the basis with a few insertions, deletions and changed bytes. */
static buf_t edited(const buf_t* basis) {
    buf_t b = {0};
    size_t pos = 0;
    while (pos < basis->n) {
        size_t run = 1 + (size_t)next_byte() * 97 % 7000;
        int what = next_byte() % 4;
        if (run > basis->n - pos) run = basis->n - pos;
        buf_add(&b, basis->p + pos, run);
        pos += run;
        if (what == 0) {
            buf_t ins = random_bytes(1 + next_byte() % 300);
            buf_add(&b, ins.p, ins.n);
            free(ins.p);
        } else if (what == 1) {
            pos += next_byte() % 200;
        } else if (what == 2 && pos < basis->n) {
            unsigned char c = (unsigned char)(basis->p[pos] ^ 0x5a);
            buf_add(&b, &c, 1);
            pos++;
        }
    }
    return b;
}

/* ---- driving jobs -------------------------------------------------------- */

/* Run a job to the end, offering at most `cin` input bytes and `cout` output bytes
 * per rs_job_iter() call; input the job leaves is offered again. */
rs_result run_job(rs_job_t* job, const buf_t* in, size_t cin, size_t cout, buf_t* out) {
    rs_buffers_t b;
    size_t pos = 0;
    long calls = 0;
    char* window = malloc(cout ? cout : 1);
    rs_result r;

    memset(&b, 0, sizeof b);
    for (;;) {
        if (b.avail_in == 0 && pos < in->n) {
            size_t k = in->n - pos < cin ? in->n - pos : cin;
            b.next_in = (char*)in->p + pos;
            b.avail_in = k;
            pos += k;
        }
        b.eof_in = pos == in->n;
        b.next_out = window;
        b.avail_out = cout;
        r = rs_job_iter(job, &b);
        if (out) buf_add(out, window, cout - b.avail_out);
        if (r != RS_BLOCKED) break;
        if (++calls > 100000000L) {
            fail("job does not finish");
            break;
        }
    }
    free(window);
    return r;
}

typedef struct {
    size_t cin, cout;
} chunking_t;

/* Byte at a time, small odd sizes, and one big buffer. */
static const chunking_t chunkings[] = {{1, 1}, {7, 13}, {4096, 100}, {1 << 22, 1 << 22}};
#define N_CHUNKINGS (sizeof chunkings / sizeof chunkings[0])

rs_result mem_copy_cb(void* opaque, rs_long_t pos, size_t* len, void** buf) {
    mem_basis_t* m = opaque;
    size_t n = *len;
    if (pos < 0 || (size_t)pos >= m->basis->n) {
        *len = 0;
        return RS_INPUT_ENDED;
    }
    if (n > m->basis->n - (size_t)pos) n = m->basis->n - (size_t)pos;
    if (m->mode == 2 && n > 5) n = 5;
    if (m->mode == 1)
        *buf = m->basis->p + pos;
    else
        memcpy(*buf, m->basis->p + pos, n);
    *len = n;
    return RS_DONE;
}

/* Log a job's statistics without the clock. The job API's in/out byte counts are
 * left out: librsync counts only what passes through its file buffers (always 0
 * for the job API), we count what the job consumed and produced. */
static void log_stats(const char* what, const rs_stats_t* stats, int job_api) {
    rs_stats_t copy = *stats;
    copy.start = copy.end = 0;
    if (job_api) copy.in_bytes = copy.out_bytes = 0;
    fprintf(log_file, "%s:\n", what);
    rs_log_stats(&copy);
}

/* ---- the round trip for one basis/new pair and one parameter set ------- */

const char* hash_name(rs_magic_number m) {
    return (m & 0x0f) == 0x06 ? "md4" : "blake2";
}
const char* roll_name(rs_magic_number m) {
    return (m & 0xf0) == 0x40 ? "rabinkarp" : "rollsum";
}

static void roundtrip(const char* name, const buf_t* basis, const buf_t* newf, rs_magic_number magic, size_t block_len,
                      size_t strong_len) {
    char label[256], fname[300];
    buf_t sig = {0}, delta = {0};
    rs_signature_t* sumset = NULL;
    rs_stats_t stats;
    unsigned i;
    rs_result r;
    FILE *f, *g, *h;

    snprintf(label, sizeof label, "%s-%s-%s-b%zu-S%zu", name, hash_name(magic), roll_name(magic), block_len,
             strong_len);
    fprintf(log_file, "== %s\n", label);

    /* Signature: every chunking gives the same bytes. */
    for (i = 0; i < N_CHUNKINGS; i++) {
        buf_t out = {0};
        rs_job_t* job = rs_sig_begin(block_len, strong_len, magic);
        r = run_job(job, basis, chunkings[i].cin, chunkings[i].cout, &out);
        if (r != RS_DONE) fail("%s: signature job returned %d", label, r);
        if (i == 0)
            sig = out;
        else if (!buf_eq(&sig, &out))
            fail("%s: signature differs with chunking %zu/%zu", label, chunkings[i].cin, chunkings[i].cout);
        if (i == N_CHUNKINGS - 1) log_stats("sig job", rs_job_statistics(job), 1);
        rs_job_free(job);
        if (i) free(out.p);
    }
    snprintf(fname, sizeof fname, "%s.sig", label);
    write_file(fname, &sig);
    fprintf(manifest, "signature %s %s -H %s -R %s -b %zu -S %zu\n", fname, name, hash_name(magic), roll_name(magic),
            block_len, strong_len);

    /* rs_sig_file on the same basis. */
    f = rs_file_open(path_of(name), "rb", 0);
    g = rs_file_open(path_of("tmp.sig"), "wb", 1);
    if (rs_file_size(f) != (rs_long_t)basis->n) fail("%s: rs_file_size", label);
    r = rs_sig_file(f, g, block_len, strong_len, magic, &stats);
    rs_file_close(f);
    rs_file_close(g);
    if (r != RS_DONE) fail("%s: rs_sig_file returned %d", label, r);
    log_stats("rs_sig_file", &stats, 0);
    {
        buf_t other = read_file("tmp.sig");
        if (!buf_eq(&sig, &other)) fail("%s: rs_sig_file output differs from the job's", label);
        free(other.p);
    }

    /* Load it with each chunking, and with rs_loadsig_file. */
    for (i = 0; i < N_CHUNKINGS; i++) {
        rs_signature_t* s;
        rs_job_t* job = rs_loadsig_begin(&s);
        r = run_job(job, &sig, chunkings[i].cin, chunkings[i].cout, NULL);
        if (r != RS_DONE) fail("%s: loadsig job returned %d", label, r);
        if (i == 0) log_stats("loadsig job", rs_job_statistics(job), 1);
        rs_job_free(job);
        rs_free_sumset(s);
    }
    f = rs_file_open(path_of(fname), "rb", 0);
    r = rs_loadsig_file(f, &sumset, &stats);
    rs_file_close(f);
    if (r != RS_DONE) fail("%s: rs_loadsig_file returned %d", label, r);
    log_stats("rs_loadsig_file", &stats, 0);
    if (sig.n < 400) rs_sumset_dump(sumset);
    if (rs_build_hash_table(sumset) != RS_DONE) fail("%s: rs_build_hash_table", label);

    /* Delta: every chunking gives the same bytes (the signature is not empty, or
     * the delta is a slack one and only the big buffer is used). */
    for (i = 0; i < N_CHUNKINGS; i++) {
        buf_t out = {0};
        rs_job_t* job;
        if (basis->n == 0 && i != N_CHUNKINGS - 1) continue;
        job = rs_delta_begin(sumset);
        r = run_job(job, newf, chunkings[i].cin, chunkings[i].cout, &out);
        if (r != RS_DONE) fail("%s: delta job returned %d", label, r);
        if (!delta.p && !delta.n)
            delta = out;
        else if (!buf_eq(&delta, &out))
            fail("%s: delta differs with chunking %zu/%zu", label, chunkings[i].cin, chunkings[i].cout);
        if (i == N_CHUNKINGS - 1) log_stats("delta job", rs_job_statistics(job), 1);
        rs_job_free(job);
        if (out.p != delta.p) free(out.p);
    }
    snprintf(fname, sizeof fname, "%s.delta", label);
    write_file(fname, &delta);
    if (basis->n > 0) /* a slack delta depends on rdiff's buffer size, see slack() */
        fprintf(manifest, "delta %s %s.sig %s.new\n", fname, label, name);

    /* rs_delta_file. */
    {
        char newname[300];
        snprintf(newname, sizeof newname, "%s.new", name);
        f = rs_file_open(path_of(newname), "rb", 0);
    }
    g = rs_file_open(path_of("tmp.delta"), "wb", 1);
    r = rs_delta_file(sumset, f, g, &stats);
    rs_file_close(f);
    rs_file_close(g);
    if (r != RS_DONE) fail("%s: rs_delta_file returned %d", label, r);
    log_stats("rs_delta_file", &stats, 0);
    if (basis->n > 0) {
        buf_t other = read_file("tmp.delta");
        if (!buf_eq(&delta, &other)) fail("%s: rs_delta_file output differs from the job's", label);
        free(other.p);
    }
    rs_free_sumset(sumset);

    /* Patch with each chunking and each kind of copy callback. */
    for (i = 0; i < N_CHUNKINGS * 3; i++) {
        buf_t out = {0};
        mem_basis_t mb = {basis, (int)(i % 3)};
        rs_job_t* job = rs_patch_begin(mem_copy_cb, &mb);
        r = run_job(job, &delta, chunkings[i / 3].cin, chunkings[i / 3].cout, &out);
        if (r != RS_DONE) fail("%s: patch job returned %d", label, r);
        if (!buf_eq(&out, newf))
            fail("%s: patch (chunking %u, callback mode %u) does not rebuild the new file", label, i / 3, i % 3);
        if (i == 0) log_stats("patch job", rs_job_statistics(job), 1);
        rs_job_free(job);
        free(out.p);
    }
    f = rs_file_open(path_of(name), "rb", 0);
    g = rs_file_open(path_of(fname), "rb", 0);
    h = rs_file_open(path_of("tmp.new"), "wb", 1);
    r = rs_patch_file(f, g, h, &stats);
    rs_file_close(f);
    rs_file_close(g);
    rs_file_close(h);
    if (r != RS_DONE) fail("%s: rs_patch_file returned %d", label, r);
    log_stats("rs_patch_file", &stats, 0);
    {
        buf_t other = read_file("tmp.new");
        if (!buf_eq(&other, newf)) fail("%s: rs_patch_file does not rebuild the new file", label);
        free(other.p);
    }
    free(sig.p);
    free(delta.p);
}

/* ---- slack deltas: one LITERAL per call / per buffer --------------------- */

static void slack(void) {
    unsigned char empty_sig[12] = {0x72, 0x73, 0x01, 0x47, 0, 0, 1, 0, 0, 0, 0, 32};
    buf_t sigb = {0}, newf = random_bytes(1000), out = {0};
    rs_signature_t* s;
    rs_job_t* job;
    rs_result r;
    FILE *f, *g;
    static const int inbufs[] = {0, 7, 100, 100000};
    unsigned i;

    fprintf(log_file, "== slack\n");
    buf_add(&sigb, empty_sig, sizeof empty_sig);
    write_file("slack.sig", &sigb);
    write_file("slack.new", &newf);
    job = rs_loadsig_begin(&s);
    r = run_job(job, &sigb, 12, 0, NULL);
    rs_job_free(job);
    if (r != RS_DONE || rs_build_hash_table(s) != RS_DONE) fail("slack: loading the empty signature");

    /* Job API: input offered 100 bytes per call gives ten 100-byte literals. */
    job = rs_delta_begin(s);
    r = run_job(job, &newf, 100, 1 << 16, &out);
    rs_job_free(job);
    if (r != RS_DONE || out.n != 4 + 10 * 102 + 1) fail("slack: job API delta has %zu bytes", out.n);
    write_file("slack-job100.delta", &out);
    free(out.p);

    /* rs_delta_file: one literal per input buffer (block_len, or rs_inbuflen). */
    for (i = 0; i < sizeof inbufs / sizeof inbufs[0]; i++) {
        char name[64];
        rs_inbuflen = inbufs[i];
        f = rs_file_open(path_of("slack.new"), "rb", 0);
        snprintf(name, sizeof name, "slack-I%d.delta", inbufs[i]);
        g = rs_file_open(path_of(name), "wb", 1);
        r = rs_delta_file(s, f, g, NULL);
        rs_file_close(f);
        rs_file_close(g);
        if (r != RS_DONE) fail("slack: rs_delta_file returned %d", r);
        if (inbufs[i])
            fprintf(manifest, "delta %s slack.sig slack.new -I %d\n", name, inbufs[i]);
        else
            fprintf(manifest, "delta %s slack.sig slack.new\n", name);
    }
    rs_inbuflen = 0;
    rs_signature_log_stats(s);
    rs_free_sumset(s);
    free(sigb.p);
    free(newf.p);
}

static char last_trace[1000];

static void trace_to_buffer(rs_loglevel level, char const* msg) {
    (void)level;
    snprintf(last_trace, sizeof last_trace, "%s", msg);
}

/* Behaviour where we differ from Debian's library on purpose (run on ours only):
 * a delta on a signature whose hash table was not built fails with RS_PARAM_ERROR
 * (librsync asserts and aborts), and job statistics count the bytes a job took
 * and gave (librsync's count only what passes its whole-file buffers, so 0). */
static void ours_only(void) {
    static const unsigned char sig[] = {0x72, 0x73, 0x01, 0x47, 0, 0, 0, 4, 0, 0, 0, 8,
                                        1,    2,    3,    4,    1, 2, 3, 4, 5, 6, 7, 8};
    buf_t in = {0}, out = {0};
    rs_signature_t* s;
    rs_job_t* job = rs_loadsig_begin(&s);
    rs_result r;
    const rs_stats_t* st;

    rs_trace_to(trace_to_buffer); /* keep log.txt the same as Debian's */
    buf_add(&in, sig, sizeof sig);
    if (run_job(job, &in, 3, 0, NULL) != RS_DONE) fail("ours: loading a one-block signature");
    st = rs_job_statistics(job);
    if (st->in_bytes != (rs_long_t)sizeof sig || st->sig_blocks != 1 || st->block_len != 4)
        fail("ours: loadsig statistics in=%jd blocks=%jd block_len=%zu", st->in_bytes, st->sig_blocks, st->block_len);
    rs_job_free(job);
    job = rs_delta_begin(s); /* no rs_build_hash_table() */
    r = run_job(job, &in, 100, 100, &out);
    if (r != RS_PARAM_ERROR) fail("ours: delta without a hash table returned %d, not RS_PARAM_ERROR", r);
    if (strcmp(last_trace, "librsync: ERROR: (rs_job_complete) delta job failed: unexplained problem\n"))
        fail("ours: delta without a hash table logged %s", last_trace);
    rs_job_free(job);
    rs_build_hash_table(s);
    job = rs_delta_begin(s);
    out.n = 0;
    r = run_job(job, &in, 100, 100, &out);
    st = rs_job_statistics(job);
    if (r != RS_DONE || st->in_bytes != (rs_long_t)in.n || st->out_bytes != (rs_long_t)out.n)
        fail("ours: delta job returned %d, in=%jd out=%jd", r, st->in_bytes, st->out_bytes);
    rs_job_free(job);
    rs_free_sumset(s);
    free(in.p);
    free(out.p);
}

int main(int argc, char** argv) {
    static const rs_magic_number formats[] = {RS_MD4_SIG_MAGIC, RS_BLAKE2_SIG_MAGIC, RS_RK_MD4_SIG_MAGIC,
                                              RS_RK_BLAKE2_SIG_MAGIC};
    struct {
        const char* name;
        buf_t basis, newf;
    } pairs[5];
    unsigned i, f;

    if (argc != 2 && !(argc == 3 && strcmp(argv[2], "--ours-only") == 0)) {
        fprintf(stderr, "usage: roundtrip OUTDIR [--ours-only]\n");
        return 2;
    }
    outdir = argv[1];
    log_file = fopen(path_of("log.txt"), "w");
    manifest = fopen(path_of("manifest.txt"), "w");
    if (!log_file || !manifest) {
        fprintf(stderr, "cannot write to %s\n", outdir);
        return 2;
    }
    setvbuf(log_file, NULL, _IOLBF, 0);
    rs_trace_to(trace_to_log);

    memset(pairs, 0, sizeof pairs);
    pairs[0].name = "random";
    pairs[0].basis = random_bytes(100000);
    pairs[0].newf = edited(&pairs[0].basis);
    pairs[1].name = "hello";
    buf_add(&pairs[1].basis, "hello world\n", 12);
    buf_add(&pairs[1].newf, "ahello world\nhello", 18);
    pairs[2].name = "emptybasis";
    pairs[2].newf = random_bytes(3000);
    pairs[3].name = "zeros";
    for (i = 0; i < 4096; i++) buf_add(&pairs[3].basis, "", 1);
    for (i = 0; i < 5000; i++) buf_add(&pairs[3].newf, i % 1000 ? "" : "z", 1);
    pairs[4].name = "emptynew";
    pairs[4].basis = random_bytes(3000);

    for (i = 0; i < 5; i++) {
        char newname[64];
        snprintf(newname, sizeof newname, "%s.new", pairs[i].name);
        write_file(pairs[i].name, &pairs[i].basis);
        write_file(newname, &pairs[i].newf);
        for (f = 0; f < 4; f++) {
            roundtrip(pairs[i].name, &pairs[i].basis, &pairs[i].newf, formats[f], 64, 8);
            roundtrip(pairs[i].name, &pairs[i].basis, &pairs[i].newf, formats[f], 512, 0);
            if (i == 1) roundtrip(pairs[i].name, &pairs[i].basis, &pairs[i].newf, formats[f], 5, 2);
        }
    }
    slack();
    bad_inputs();
    call_traces();
    client_codes();
    utilities();
    if (argc == 3) ours_only();

    fclose(manifest);
    fclose(log_file);
    for (i = 0; i < 5; i++) {
        free(pairs[i].basis.p);
        free(pairs[i].newf.p);
    }
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    return 0;
}
