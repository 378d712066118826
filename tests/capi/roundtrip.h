/* roundtrip.h - what roundtrip.c shares with the files of its other cases: byte
 * buffers, the failure count, the log file and the job drivers. */
#ifndef RDELTA_TESTS_CAPI_ROUNDTRIP_H
#define RDELTA_TESTS_CAPI_ROUNDTRIP_H

#include <librsync.h>

#include <stddef.h>
#include <stdio.h>

typedef struct {
    unsigned char* p;
    size_t n, cap;
} buf_t;

/* The basis for COPY commands, in memory. `mode` 1 hands back the library's own
 * buffer pointer replaced by ours; mode 2 returns at most 5 bytes per call. */
typedef struct {
    const buf_t* basis;
    int mode;
} mem_basis_t;

extern FILE* log_file;
void fail(const char* fmt, ...);
void buf_add(buf_t* b, const void* p, size_t n);
int buf_eq(const buf_t* a, const buf_t* b);
char* path_of(const char* name);
buf_t random_bytes(size_t n);
rs_result run_job(rs_job_t* job, const buf_t* in, size_t cin, size_t cout, buf_t* out);
rs_result mem_copy_cb(void* opaque, rs_long_t pos, size_t* len, void** buf);
const char* hash_name(rs_magic_number m);
const char* roll_name(rs_magic_number m);

/* Writes the call traces (call_traces.c). */
void call_traces(void);
/* Logs what callbacks returning the client's own codes lead to (client_codes.c). */
void client_codes(void);
/* Logs the results and trace lines of malformed inputs (bad_inputs.c). */
void bad_inputs(void);
/* Writes utils.txt: librsync's helper calls (utilities.c). */
void utilities(void);

#endif
