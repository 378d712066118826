// stats_format.cpp - formats job statistics exactly as librsync 2.3.2 prints them.
#include "stats_format.hpp"

#include <cinttypes>
#include <cstdio>

namespace rdelta::cli {

std::string format_stats(const job_stats& s, std::time_t start, std::time_t end) {
    char buf[512];
    int n = std::snprintf(buf, sizeof buf, "%s statistics: ", s.op);
    auto room = [&] { return sizeof buf - static_cast<std::size_t>(n); };
    if (s.lit_cmds > 0)
        n += std::snprintf(buf + n, room(), "literal[%d cmds, %" PRId64 " bytes, %" PRId64 " cmdbytes] ",
                           static_cast<int>(s.lit_cmds), s.lit_bytes, s.lit_cmdbytes);
    if (s.copy_cmds > 0)
        n += std::snprintf(buf + n, room(), "copy[%" PRId64 " cmds, %" PRId64 " bytes, %" PRId64 " cmdbytes, %d false]",
                           s.copy_cmds, s.copy_bytes, s.copy_cmdbytes, static_cast<int>(s.false_matches));
    if (s.sig_blocks > 0)
        n += std::snprintf(buf + n, room(), "signature[%" PRId64 " blocks, %zu bytes per block]", s.sig_blocks,
                           s.block_len);
    const long sec = end - start > 0 ? static_cast<long>(end - start) : 1;
    const double in_mb = static_cast<double>(s.in_bytes) / 1e6, out_mb = static_cast<double>(s.out_bytes) / 1e6;
    std::snprintf(buf + n, room(), " speed[%.1f MB (%.1f MB/s) in, %.1f MB (%.1f MB/s) out, %d sec]", in_mb,
                  in_mb / static_cast<double>(sec), out_mb, out_mb / static_cast<double>(sec), static_cast<int>(sec));
    return buf;
}

std::string format_match_stats(const job_stats& s) {
    char buf[400];
    const double searches = static_cast<double>(s.searches);
    const double calcs = static_cast<double>(s.strong_calcs);
    std::snprintf(buf, sizeof buf,
                  "match statistics: signature[%" PRId64 " searches, %" PRId64 " (%.3f%%) matches, %" PRId64
                  " (%.3fx) weak sum compares, %" PRId64 " (%.3f%%) strong sum compares, %" PRId64
                  " (%.3f%%) strong sum calcs]",
                  s.searches, s.matches, 100.0 * static_cast<double>(s.matches) / searches, s.weak_hits,
                  static_cast<double>(s.weak_hits) / searches, s.strong_calcs, 100.0 * calcs / searches, s.strong_calcs,
                  100.0 * calcs / searches);
    return buf;
}

}  // namespace rdelta::cli
