// progress.hpp - a progress line on stderr for long runs: bytes done, total when
// known, rate and time left. On a terminal it is redrawn in place at most four times
// a second and erased at the end; into a file or a pipe it is a plain line (no
// carriage return, no escape sequence) every 10 seconds at most.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace rdelta::cli {

class progress_meter {
public:
    /// `total` < 0 when unknown (a pipe). Disabled meters do nothing.
    progress_meter(bool enabled, std::string label, std::int64_t total);
    ~progress_meter();
    progress_meter(const progress_meter&) = delete;
    progress_meter& operator=(const progress_meter&) = delete;

    /// Input bytes processed so far.
    void update(std::int64_t done);
    /// Erase the line (also done by the destructor).
    void finish();
    /// After a successful run, a meter that was shown leaves one summary line:
    /// "LABEL: N bytes in T s (R/s)".
    void summary(std::int64_t done);

private:
    void draw(std::int64_t done, double elapsed);

    bool enabled_;
    bool shown_;     // enabled when made: a summary line is due at the end
    bool terminal_;  // stderr is a terminal: redraw the line in place
    bool drawn_ = false;
    std::string label_;
    std::int64_t total_;
    std::chrono::steady_clock::time_point start_, last_;
};

/// Whether to show progress: --progress/--no-progress, else only when stderr is a
/// terminal; never when invoked as rdiff.
bool progress_wanted(bool as_rdiff, const bool* forced);

}  // namespace rdelta::cli
