// stats_printer.hpp - what signature, delta and patch print about a finished job:
// rdiff's -s lines, rdelta's summary line, and --json's object, all on stderr.
#pragma once

#include "invocation.hpp"

#include <rdelta/job.hpp>

#include <cstdint>
#include <ctime>
#include <string>

namespace rdelta::cli {

/// Statistics of one job, printed when -s (or --json) is given.
class stats_printer {
public:
    stats_printer(const request& req, const invocation& inv) : enabled_(req.statistics), json_(req.json), inv_(inv) {}
    /// The job starts now: the elapsed times count from here.
    void start();
    /// rdiff's "librsync: <op> statistics: ..." line.
    void job_done(const job_stats& s) const;
    /// Another "librsync: TEXT" line.
    void line(const std::string& text) const;
    /// rdelta's own summary: elapsed time, throughput, peak memory, and the bytes
    /// really read from files (holes of sparse inputs are not read).
    void summary(std::int64_t bytes_in, std::int64_t holes = 0) const;
    /// --json: one object on stderr for scripts, whatever -s says.
    void json(const job_stats& s) const;

private:
    bool enabled_, json_;
    const invocation& inv_;
    std::time_t start_ = 0;
    double start_precise_ = 0;
};

}  // namespace rdelta::cli
