// history_command.cpp - listing, restoring, pruning and checking an image's
// restore points (rdelta/history.hpp); the library does the work.
#include "history_command.hpp"

#include "exit_codes.hpp"
#include "restore_delta.hpp"

#include <rdelta/in_place_fd.hpp>
#include <rdelta/journal.hpp>
#include <rdelta/output_file.hpp>

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <memory>

namespace rdelta::cli {

namespace {

std::string hex(const std::array<std::uint8_t, 16>& h) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (const std::uint8_t b : h) s += digits[b >> 4], s += digits[b & 15];
    return s;
}

// The image, locked, with no interrupted patch pending (its newest point may be
// in the journal still), and its history (nullptr: it keeps none).
struct image_history {
    std::optional<in_place_fd> image;
    std::unique_ptr<history> points;
};

result<image_history> open_history(const request& req, const invocation& inv) {
    auto image = in_place_fd::open(req.files[0]);
    if (!image) return std::move(image).err();
    if (auto locked = image->lock(); !locked) return std::move(locked).err();
    auto journal = open_journal_file(*image);
    if (!journal) return std::move(journal).err();
    if ((*journal)->exists())
        return fail(errc::io_error, image->name() + ": an in-place patch was interrupted: run `" + inv.prog +
                                        " recover " + image->name() + "` first");
    auto h = history::open(*image, req.history_dir, false);
    if (!h) return std::move(h).err();
    image_history found;
    found.image.emplace(std::move(*image));
    found.points = std::move(*h);
    return found;
}

error no_history(const image_history& found) {
    return fail(errc::io_error, found.image->name() +
                                    ": keeps no restore points (patch --in-place --keep-history starts keeping them)");
}

void print_point_line(const history_point& p) {
    std::printf("%4" PRIu64 "  %s  %15" PRIu64 " bytes  %12" PRIu64 " stored\n", p.number, point_time(p.time_s).c_str(),
                p.length, p.stored_bytes);
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            out += esc;
            continue;
        }
        out += c;
    }
    return out + "\"";
}

bool parse_time(const std::string& text, std::int64_t& out) {
    std::tm tm{};
    int y = 0, mo = 0, d = 0, h = 23, mi = 59, s = 59;
    char sep = 0;
    int used = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &used) != 3) return false;
    if (static_cast<std::size_t>(used) != text.size()) {
        s = 0;
        int more = 0;
        const int n = std::sscanf(text.c_str() + used, "%c%2d:%2d%n:%2d%n", &sep, &h, &mi, &more, &s, &more);
        if (n < 3 || (sep != 'T' && sep != ' ') || static_cast<std::size_t>(used + more) != text.size()) return false;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return false;
    tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = d, tm.tm_hour = h, tm.tm_min = mi, tm.tm_sec = s;
    tm.tm_isdst = -1;
    const std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1)) return false;
    out = static_cast<std::int64_t>(t);
    return true;
}

}  // namespace

std::string point_time(std::int64_t t) {
    const auto tt = static_cast<std::time_t>(t);
    std::tm tm{};
    ::localtime_r(&tt, &tm);
    char text[40];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S%z", &tm);
    return text;
}

std::optional<std::uint64_t> resolve_point(const std::string& point, const std::vector<history_point>& points,
                                           std::string& why) {
    if (!point.empty() && point.find_first_not_of("0123456789") == std::string::npos && point.size() < 12) {
        const std::uint64_t n = std::stoull(point);
        if (n >= 1 && n <= points.size()) return n;
        why = "no point " + point + " (there are " + std::to_string(points.size()) + ")";
        return std::nullopt;
    }
    std::int64_t at = 0;
    if (!parse_time(point, at)) {
        why = "'" + point + "' is neither a point number nor a date (2026-12-01, 2026-12-01T03:00)";
        return std::nullopt;
    }
    for (const auto& p : points)
        if (p.time_s <= at) return p.number;
    why = "no point at or before " + point;
    return std::nullopt;
}

int history_command(const request& req, const invocation& inv) {
    auto found = open_history(req, inv);
    if (!found) return report(inv, found.err());
    std::vector<history_point> points;
    if (found->points) {
        auto listed = found->points->points();
        if (!listed) return report(inv, listed.err());
        points = std::move(*listed);
    }
    if (req.json) {
        std::printf("{\"image\": %s, \"length\": %" PRIu64 ", \"history\": %s, \"points\": [",
                    json_string(found->image->name()).c_str(), found->image->size(),
                    found->points ? json_string(found->points->name()).c_str() : "null");
        for (std::size_t i = 0; i < points.size(); ++i) {
            const auto& p = points[i];
            std::printf("%s{\"point\": %" PRIu64 ", \"time\": \"%s\", \"time_s\": %" PRId64 ", \"length\": %" PRIu64
                        ", \"stored_bytes\": %" PRIu64 ", \"root\": \"%s\", \"chunk_size\": %" PRIu32 "}",
                        i ? ", " : "", p.number, point_time(p.time_s).c_str(), p.time_s, p.length, p.stored_bytes,
                        hex(p.root).c_str(), p.chunk_size);
        }
        std::printf("]}\n");
        return exit_success;
    }
    if (points.empty()) {
        if (!req.quiet)
            std::fprintf(stderr, "%s: %s: no restore points\n", inv.prog.c_str(), found->image->name().c_str());
        return exit_success;
    }
    std::printf("point  time                      length                   stored\n");
    for (const auto& p : points) print_point_line(p);
    return exit_success;
}

int restore_command(const request& req, const invocation& inv) {
    if (req.compression != codec::none && req.delta_against.empty())
        return report_usage(inv, "restore compresses only what --delta-against writes");
    auto found = open_history(req, inv);
    if (!found) return report(inv, found.err());
    if (!found->points) return report(inv, no_history(*found));
    auto points = found->points->points();
    if (!points) return report(inv, points.err());
    std::string why;
    const auto number = resolve_point(req.files[1], *points, why);
    if (!number) return report(inv, fail(errc::param_error, found->image->name() + ": " + why));
    if (!req.delta_against.empty()) return restore_delta(req, inv, *found->image, *found->points, *number);
    const std::string& target = req.files[2];
    if (target != "-")
        if (auto ok = output_file::check(target, req.force); !ok) return report(inv, ok.err());
    auto out = output_file::create(target, req.force);
    if (!out) return report(inv, out.err());
    out->set_sparse(req.sparse);
    out->set_durable(req.durable);
    auto done = restore_point(*found->image, *found->points, *number, out->sink());
    if (!done) return report(inv, done.err());
    if (auto c = out->commit(); !c) return report(inv, c.err());
    if (!req.quiet)
        std::fprintf(stderr,
                     "%s: %s: restored point %" PRIu64 " (%s, %" PRIu64 " bytes) to %s; read %" PRIu64
                     " bytes of the image and %" PRIu64 " of the history; verified against its root\n",
                     inv.prog.c_str(), found->image->name().c_str(), *number, point_time(done->point.time_s).c_str(),
                     done->point.length, target.c_str(), done->image_bytes_read, done->increment_bytes_read);
    return exit_success;
}

int prune_command(const request& req, const invocation& inv) {
    prune_policy policy;
    policy.keep_last = static_cast<std::uint64_t>(req.keep_last);
    policy.daily = static_cast<std::uint64_t>(req.keep_daily);
    policy.weekly = static_cast<std::uint64_t>(req.keep_weekly);
    policy.monthly = static_cast<std::uint64_t>(req.keep_monthly);
    if (policy.empty())
        return report_usage(inv,
                            "prune needs a rule: --keep-last N, --keep-daily D, --keep-weekly W or --keep-monthly M");
    auto found = open_history(req, inv);
    if (!found) return report(inv, found.err());
    if (!found->points) return report(inv, no_history(*found));
    auto done = prune_history(*found->points, policy, req.dry_run);
    if (!done) return report(inv, done.err());
    const char* prog = inv.prog.c_str();
    const char* name = found->image->name().c_str();
    if (req.dry_run) {
        for (const auto& p : done->dropped)
            std::printf("would drop point %" PRIu64 " (%s, %" PRIu64 " bytes stored)\n", p.number,
                        point_time(p.time_s).c_str(), p.stored_bytes);
        for (const auto& p : done->kept)
            std::printf("would keep point %" PRIu64 " (%s)\n", p.number, point_time(p.time_s).c_str());
    }
    if (req.json)
        std::printf("{\"command\": \"prune\", \"dry_run\": %s, \"kept\": %zu, \"dropped\": %zu, \"merged\": %" PRIu64
                    ", \"bytes_freed\": %" PRIu64 "}\n",
                    req.dry_run ? "true" : "false", done->kept.size(), done->dropped.size(), done->merged,
                    done->bytes_freed);
    if (!req.quiet && !req.dry_run)
        std::fprintf(stderr,
                     "%s: %s: kept %zu restore points, dropped %zu (%" PRIu64 " merged into older ones), freed %" PRIu64
                     " bytes\n",
                     prog, name, done->kept.size(), done->dropped.size(), done->merged, done->bytes_freed);
    return exit_success;
}

int verify_history_command(const request& req, const invocation& inv, in_place_fd& image) {
    auto h = history::open(image, req.history_dir, false);
    if (!h) return report(inv, h.err());
    if (!*h) {
        if (!req.quiet)
            std::fprintf(stderr, "%s: %s: no restore points to check\n", inv.prog.c_str(), image.name().c_str());
        return exit_success;
    }
    auto check = verify_history(**h);
    if (!check) return report(inv, check.err());
    for (std::size_t i = 0; i < check->points.size(); ++i)
        if (!check->problems[i].empty())
            std::fprintf(stderr, "%s: %s: restore point %" PRIu64 " is damaged: %s\n", inv.prog.c_str(),
                         image.name().c_str(), check->points[i].number, check->problems[i].c_str());
    if (!check->clean()) return exit_code(errc::corrupt);
    if (!req.quiet)
        std::fprintf(stderr, "%s: %s: %zu restore points match their checksums\n", inv.prog.c_str(),
                     image.name().c_str(), check->points.size());
    return exit_success;
}

}  // namespace rdelta::cli
