// stats_printer.cpp - a job's statistics on stderr (see stats_printer.hpp).
#include "stats_printer.hpp"

#include "progress.hpp"
#include "stats_format.hpp"

#include <sys/resource.h>
#include <sys/time.h>
#include <cinttypes>
#include <cstdio>

namespace rdelta::cli {

namespace {

double now_seconds() {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

}  // namespace

void stats_printer::start() {
    start_ = std::time(nullptr), start_precise_ = now_seconds();
}

void stats_printer::job_done(const job_stats& s) const {
    if (enabled_) std::fprintf(stderr, "librsync: %s\n", format_stats(s, start_, std::time(nullptr)).c_str());
}

void stats_printer::line(const std::string& text) const {
    if (enabled_) std::fprintf(stderr, "librsync: %s\n", text.c_str());
}

void stats_printer::summary(std::int64_t bytes_in, std::int64_t holes) const {
    if (!enabled_ || inv_.as_rdiff) return;
    const double secs = now_seconds() - start_precise_;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::fprintf(stderr,
                 "%s: elapsed %.3f s, %.1f MB/s in, peak memory %.1f MiB, read %.1f MiB, holes skipped %.1f MiB\n",
                 inv_.prog.c_str(), secs, secs > 0 ? static_cast<double>(bytes_in) / 1e6 / secs : 0.0,
                 static_cast<double>(ru.ru_maxrss) / 1024.0, static_cast<double>(process_bytes_read()) / 1048576.0,
                 static_cast<double>(holes) / 1048576.0);
}

void stats_printer::json(const job_stats& s) const {
    if (!json_) return;
    const double secs = now_seconds() - start_precise_;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::fprintf(stderr,
                 "{\"command\": \"%s\", \"in_bytes\": %" PRId64 ", \"out_bytes\": %" PRId64
                 ", \"literal_commands\": %" PRId64 ", \"literal_bytes\": %" PRId64 ", \"copy_commands\": %" PRId64
                 ", \"copy_bytes\": %" PRId64 ", \"blocks\": %" PRId64
                 ", \"elapsed_s\": %.3f, \"peak_rss_bytes\": %lld"
                 ", \"read_bytes\": %" PRId64 ", \"holes_skipped\": %" PRId64 "}\n",
                 s.op, s.in_bytes, s.out_bytes, s.lit_cmds, s.lit_bytes, s.copy_cmds, s.copy_bytes, s.sig_blocks, secs,
                 static_cast<long long>(ru.ru_maxrss) * 1024, process_bytes_read(), s.holes_skipped);
}

}  // namespace rdelta::cli
