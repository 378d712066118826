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
    /// "LABEL: N bytes in T s (R/s read)", and the holes skipped when there were
    /// some (`holes` of the `done` bytes were holes: neither read nor written).
    void summary(std::int64_t done, std::int64_t holes = 0);

private:
    void draw(std::int64_t done, double elapsed);

    bool enabled_;
    bool shown_;     // enabled when made: a summary line is due at the end
    bool terminal_;  // stderr is a terminal: redraw the line in place
    bool drawn_ = false;
    std::string label_;
    std::int64_t total_;
    std::int64_t read_at_start_;  // process_bytes_read() when made
    std::chrono::steady_clock::time_point start_, last_;
};

/// Bytes this process has read with read() and pread() so far (/proc/self/io
/// "rchar"; 0 where there is none): holes that were skipped are not in it.
std::int64_t process_bytes_read();

/// Whether to show progress: --progress/--no-progress, else only when stderr is a
/// terminal; never when invoked as rdiff.
bool progress_wanted(bool as_rdiff, const bool* forced);

}  // namespace rdelta::cli
