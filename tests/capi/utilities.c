/* utilities.c - librsync's helper calls (MD4, hex and base64, rs_strerror,
 * rs_sig_args' defaults, rs_format_stats) written to utils.txt, for roundtrip.c
 * (built into both of its programs, on our library and on Debian's). */
#include "roundtrip.h"

#include <librsync.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- utilities ------------------------------------------------------------ */

void utilities(void) {
    FILE* u = fopen(path_of("utils.txt"), "w");
    unsigned char digest[16];
    char hex[80], b64[200];
    buf_t data = random_bytes(1000);
    rs_mdfour_t* md = malloc(96); /* librsync's private layout is 96 bytes */
    static const rs_long_t sizes[] = {-1,     0,       1,       255,      256,          65536,        100000,
                                      131072, 1000000, 4194304, 10000000, 1073741824LL, 10000000000LL};
    static const size_t strongs[] = {0, (size_t)-1, 2, 8, 16, 17, 32, 33};
    static const rs_magic_number magics[] = {0,
                                             RS_MD4_SIG_MAGIC,
                                             RS_BLAKE2_SIG_MAGIC,
                                             RS_RK_MD4_SIG_MAGIC,
                                             RS_RK_BLAKE2_SIG_MAGIC,
                                             (rs_magic_number)0x72730148};
    rs_stats_t st;
    char line[1000];
    size_t i, j, k, n;
    int code;

    fprintf(u, "version %s md4len %d blake2len %d trace %d\n", rs_librsync_version, RS_MD4_SUM_LENGTH,
            RS_BLAKE2_SUM_LENGTH, rs_supports_trace());
    rs_mdfour(digest, "abc", 3);
    rs_hexify(hex, digest, 16);
    fprintf(u, "md4(abc) %s\n", hex);
    rs_mdfour(digest, "", 0);
    rs_hexify(hex, digest, 16);
    fprintf(u, "md4() %s\n", hex);
    for (n = 0; n <= 1000; n += 37) {
        unsigned char once[16];
        rs_mdfour(once, data.p, n);
        rs_mdfour_begin(md);
        for (i = 0; i < n;) { /* odd pieces, crossing 64-byte blocks */
            size_t piece = (i * 7 + 3) % 71;
            if (piece > n - i) piece = n - i;
            rs_mdfour_update(md, data.p + i, piece);
            i += piece;
        }
        rs_mdfour_result(md, digest);
        if (memcmp(once, digest, 16)) fail("rs_mdfour_update in pieces differs at length %zu", n);
        rs_hexify(hex, digest, 16);
        fprintf(u, "md4(%zu) %s\n", n, hex);
    }
    for (n = 0; n <= 12; n++) {
        char copy[200];
        size_t got;
        rs_base64(data.p, (int)n, b64);
        strcpy(copy, b64);
        got = rs_unbase64(copy);
        fprintf(u, "base64(%zu) %s -> %zu bytes %s\n", n, b64, got, memcmp(copy, data.p, n) ? "differ" : "same");
    }
    strcpy(b64, "YW!Jj");
    fprintf(u, "unbase64(YW!Jj) %zu\n", rs_unbase64(b64));
    for (code = -1; code <= 110; code++)
        if (code <= 2 || code == 77 || code >= 100) fprintf(u, "strerror(%d) %s\n", code, rs_strerror((rs_result)code));
    for (i = 0; i < sizeof magics / sizeof magics[0]; i++)
        for (j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
            for (k = 0; k < sizeof strongs / sizeof strongs[0]; k++) {
                rs_magic_number m = magics[i];
                size_t bl = k == 3 ? 1000 : 0, sl = strongs[k];
                rs_result r = rs_sig_args(sizes[j], &m, &bl, &sl);
                fprintf(u, "sig_args(%lld, %#x, %zu) = %d: magic %#x block %zu strong %zu\n", (long long)sizes[j],
                        (unsigned)magics[i], strongs[k], (int)r, (unsigned)m, bl, sl);
            }
    memset(&st, 0, sizeof st);
    fprintf(u, "%s\n", rs_format_stats(&st, line, sizeof line));
    fprintf(u, "%s\n", rs_format_stats(&st, line, 20));
    st.op = "delta";
    st.lit_cmds = 3, st.lit_bytes = 70000, st.lit_cmdbytes = 9;
    st.copy_cmds = 2, st.copy_bytes = 123456789, st.copy_cmdbytes = 11;
    st.sig_blocks = 5, st.block_len = 2048;
    st.in_bytes = 5500000, st.out_bytes = 70100;
    st.start = 1000, st.end = 1004;
    fprintf(u, "%s\n", rs_format_stats(&st, line, sizeof line));
    st.sig_cmds = 1, st.sig_bytes = 2, st.false_matches = 3, st.end = 900;
    fprintf(u, "%s\n", rs_format_stats(&st, line, sizeof line));
    fclose(u);
    free(md);
    free(data.p);
}
