// stats_format.hpp - rdiff's -s statistics lines (librsync's rs_format_stats shape).
#pragma once

#include <rdelta/job.hpp>

#include <ctime>
#include <string>

namespace rdelta::cli {

/// "<op> statistics: literal[...] copy[...] signature[...] speed[...]" (no prefix, no newline).
std::string format_stats(const job_stats& stats, std::time_t start, std::time_t end);

/// "match statistics: signature[N searches, ...]" from a delta job's search counters.
std::string format_match_stats(const job_stats& stats);

}  // namespace rdelta::cli
