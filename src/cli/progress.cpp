// progress.cpp - the progress line.
#include "progress.hpp"

#include <unistd.h>
#include <cstdio>

namespace rdelta::cli {

namespace {

std::string human_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
    char text[32];
    std::snprintf(text, sizeof text, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return text;
}

}  // namespace

std::int64_t process_bytes_read() {
    std::FILE* f = std::fopen("/proc/self/io", "r");
    if (!f) return 0;
    long long rchar = 0;
    if (std::fscanf(f, "rchar: %lld", &rchar) != 1) rchar = 0;
    std::fclose(f);
    return rchar;
}

bool progress_wanted(bool as_rdiff, const bool* forced) {
    if (as_rdiff) return false;
    if (forced) return *forced;
    return isatty(STDERR_FILENO) == 1;
}

progress_meter::progress_meter(bool enabled, std::string label, std::int64_t total)
    : enabled_(enabled),
      shown_(enabled),
      terminal_(isatty(STDERR_FILENO) == 1),
      label_(std::move(label)),
      total_(total),
      read_at_start_(enabled ? process_bytes_read() : 0),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

progress_meter::~progress_meter() {
    finish();
}

void progress_meter::update(std::int64_t done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    // A terminal's line is redrawn in place; a file or pipe gets a plain line now and then.
    if (now - last_ < (terminal_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(10000))) return;
    last_ = now;
    draw(done, std::chrono::duration<double>(now - start_).count());
}

// The rate is of the bytes read (holes skipped are not), the time left from how
// fast the position moves (holes pass quickly).
void progress_meter::draw(std::int64_t done, double elapsed) {
    const double read = static_cast<double>(process_bytes_read() - read_at_start_);
    const double rate = elapsed > 0 ? read / elapsed : 0;
    const double pace = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
    std::string line = (terminal_ ? "\r" : "") + label_ + ": " + human_bytes(static_cast<double>(done));
    if (total_ > 0) {
        char pct[16];
        std::snprintf(pct, sizeof pct, " (%d%%)",
                      static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total_)));
        line += " of " + human_bytes(static_cast<double>(total_)) + pct;
    }
    line += ", " + human_bytes(rate) + "/s read";
    if (total_ > 0 && pace > 0 && done < total_) {
        const auto left = static_cast<long>(static_cast<double>(total_ - done) / pace);
        char eta[32];
        std::snprintf(eta, sizeof eta, ", %ld:%02ld left", left / 60, left % 60);
        line += eta;
    }
    line += terminal_ ? "\033[K" : "\n";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    drawn_ = terminal_;  // only a terminal's line is erased at the end
}

void progress_meter::summary(std::int64_t done, std::int64_t holes) {
    finish();
    if (!shown_) return;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double read = static_cast<double>(process_bytes_read() - read_at_start_);
    const std::string skipped =
        holes > 0 ? ", " + human_bytes(static_cast<double>(holes)) + " of holes skipped" : std::string();
    std::fprintf(stderr, "%s: %s in %.1f s (%s/s read%s)\n", label_.c_str(),
                 human_bytes(static_cast<double>(done)).c_str(), secs, human_bytes(secs > 0 ? read / secs : 0).c_str(),
                 skipped.c_str());
    shown_ = false;
}

void progress_meter::finish() {
    if (drawn_) std::fputs("\r\033[K", stderr), std::fflush(stderr);
    drawn_ = false;
    enabled_ = false;
}

}  // namespace rdelta::cli
