// stats.cpp - rs_format_stats() and rs_log_stats(): librsync 2.3.2's statistics line,
// which rdiff -s prints.
#include "capi.hpp"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace {

// Append to buf at *len like librsync's chained snprintf() calls, but never past
// `size` (librsync would write out of bounds once the line is cut).
__attribute__((format(printf, 4, 5))) void append(char* buf, size_t size, size_t* len, const char* fmt, ...) {
    if (*len >= size) return;
    va_list va;
    va_start(va, fmt);
    const int n = std::vsnprintf(buf + *len, size - *len, fmt, va);
    va_end(va);
    if (n > 0) *len += static_cast<size_t>(n);
}

}  // namespace

char* rs_format_stats(rs_stats_t const* stats, char* buf, size_t size) {
    if (!buf || size == 0) return buf;
    buf[0] = '\0';
    size_t len = 0;
    append(buf, size, &len, "%s statistics: ", stats->op ? stats->op : "noop");
    if (stats->lit_cmds)
        append(buf, size, &len, "literal[%d cmds, %" PRIdMAX " bytes, %" PRIdMAX " cmdbytes] ", stats->lit_cmds,
               stats->lit_bytes, stats->lit_cmdbytes);
    if (stats->sig_cmds)
        append(buf, size, &len, "in-place-signature[%" PRIdMAX " cmds, %" PRIdMAX " bytes] ", stats->sig_cmds,
               stats->sig_bytes);
    if (stats->copy_cmds || stats->false_matches)
        append(buf, size, &len, "copy[%" PRIdMAX " cmds, %" PRIdMAX " bytes, %" PRIdMAX " cmdbytes, %d false]",
               stats->copy_cmds, stats->copy_bytes, stats->copy_cmdbytes, stats->false_matches);
    if (stats->sig_blocks)
        append(buf, size, &len, "signature[%" PRIdMAX " blocks, %zu bytes per block]", stats->sig_blocks,
               stats->block_len);
    int sec = static_cast<int>(stats->end - stats->start);
    if (sec == 0) sec = 1;  // librsync's guard against dividing by zero
    const double mb_in = static_cast<double>(stats->in_bytes) / 1e6;
    const double mb_out = static_cast<double>(stats->out_bytes) / 1e6;
    append(buf, size, &len, " speed[%.1f MB (%.1f MB/s) in, %.1f MB (%.1f MB/s) out, %d sec]", mb_in, mb_in / sec,
           mb_out, mb_out / sec, sec);
    return buf;
}

int rs_log_stats(rs_stats_t const* stats) {
    char buf[1000];
    rs_format_stats(stats, buf, sizeof buf - 1);
    rdelta::capi::log(RS_LOG_INFO | rdelta::capi::log_noname, nullptr, "%s", buf);
    return 0;
}
