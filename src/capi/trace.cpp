// trace.cpp - log sink and level (rs_trace_*), and the internal logger that formats
// lines exactly as librsync's rs_log0() does, including its buffer sizes (a message
// is cut at 999 bytes, as there).
#include "c_enum.hpp"
#include "capi.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace {

// Process-global, as in librsync.
rs_trace_fn_t* trace_impl = rs_trace_stderr;
int trace_level = RS_LOG_INFO;

// Prefixes indexed by rs_loglevel.
const char* const severities[] = {"EMERGENCY! ", "ALERT! ", "CRITICAL! ", "ERROR: ", "Warning: ", "", "", ""};

}  // namespace

void rs_trace_to(rs_trace_fn_t* new_impl) {
    trace_impl = new_impl;
}

void rs_trace_set_level(rs_loglevel level) {
    trace_level = rdelta::capi::c_int(level);  // any int a C caller passes
}

void rs_trace_stderr(rs_loglevel, char const* msg) {
    std::fputs(msg, stderr);
}

// Debian builds librsync without debug tracing; rdiff -v relies on this answer to
// print "Library does not support trace."
int rs_supports_trace(void) {
    return 0;
}

namespace rdelta::capi {

void log(int flags, const char* fn, const char* fmt, ...) {
    const int level = flags & 7;
    if (!trace_impl || level > trace_level) return;
    char msg[1000];
    char line[1040];
    va_list va;
    va_start(va, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, va);
    va_end(va);
    if ((flags & log_noname) || !fn || !*fn)
        std::snprintf(line, sizeof line, "librsync: %s%s\n", severities[level], msg);
    else
        std::snprintf(line, sizeof line, "librsync: %s(%s) %s\n", severities[level], fn, msg);
    trace_impl(static_cast<rs_loglevel>(level), line);
}

void* alloc_or_abort(std::size_t size, const char* what) {
    void* p = std::malloc(size ? size : 1);
    if (!p) {
        log(RS_LOG_CRIT, "rs_alloc", "couldn't allocate instance of %s", what);
        std::abort();
    }
    return p;
}

}  // namespace rdelta::capi
