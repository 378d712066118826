// in_place_command.cpp - the crash-safe in-place commands of the CLI.
#include "in_place_command.hpp"

#include "core/test_hooks.hpp"
#include "delta_passes.hpp"
#include "exit_codes.hpp"
#include "history_command.hpp"
#include "progress.hpp"
#include "stats_format.hpp"

#include <rdelta/file.hpp>
#include <rdelta/journal.hpp>
#include <rdelta/manifest.hpp>
#include <rdelta/update.hpp>

#include <sys/resource.h>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <memory>

namespace rdelta::cli {

namespace {

// A journal whose name was moved or replaced while this run had it open was not
// deleted: say so, since whoever moved it may put it back later (it is stale then,
// and recovery ignores it, but a person should know it is around).
void warn_moved(const invocation& inv, const std::string& journal) {
    std::fprintf(stderr,
                 "%s: warning: %s was moved or replaced during the patch: the file under that name now is not "
                 "ours to delete, and the journal moved away is stale\n",
                 inv.prog.c_str(), journal.c_str());
}

// Say what recovery of an interrupted run found and did.
void say_recovered(const invocation& inv, const std::string& name, const recovery_result& done,
                   const std::string& journal) {
    const char* prog = inv.prog.c_str();
    switch (done.action) {
        case recovery_action::stale:
            std::fprintf(stderr, "%s: %s: ignoring stale journal %s (it belongs to an earlier update); deleted it\n",
                         prog, name.c_str(), journal.c_str());
            break;
        case recovery_action::none: break;
        case recovery_action::discarded:
            std::fprintf(stderr, "%s: %s: deleted the journal of a patch interrupted before it wrote anything\n", prog,
                         name.c_str());
            break;
        case recovery_action::rolled_back:
            std::fprintf(stderr,
                         "%s: %s: rolled back an interrupted in-place patch (%" PRIu64 " regions, %" PRIu64
                         " bytes restored)\n",
                         prog, name.c_str(), done.records, done.bytes_restored);
            break;
        case recovery_action::completed:
            std::fprintf(stderr, "%s: %s: finished an interrupted in-place patch that had already been verified%s\n",
                         prog, name.c_str(), done.point_kept ? " and kept its restore point" : "");
            break;
    }
}

// The callbacks that report what the update found before patching.
update_options reporting_options(const request& req, const invocation& inv, const in_place_fd& image) {
    update_options o;
    o.journal = req.journal;
    o.keep_history = req.keep_history;
    o.history_dir = req.history_dir;
    const std::string name = image.name();
    o.on_rewrite_finished = [&inv, name](const std::string& staging) {
        std::fprintf(stderr, "%s: %s: finished an interrupted rewrite from %s\n", inv.prog.c_str(), name.c_str(),
                     staging.c_str());
    };
    o.on_recovered = [&inv, name](const recovery_result& done, const std::string& journal) {
        say_recovered(inv, name, done, journal);
    };
    return o;
}

const char* basis_word(in_place_stats::basis_check b) {
    switch (b) {
        case in_place_stats::basis_check::matched: return "matched";
        case in_place_stats::basis_check::no_manifest: return "unchecked";
        case in_place_stats::basis_check::no_basis_root: break;
    }
    return "unnamed";
}

}  // namespace

int in_place_patch(const request& req, const invocation& inv, const std::function<int()>& check_args) {
    auto image = in_place_fd::open(file_arg(req, 0));
    if (!image) return report(inv, image.err());
    auto opener = make_delta_opener(file_arg(req, 1));
    if (!opener) return report(inv, opener.err());
    if (int rc = check_args()) return rc;

    const auto start = std::chrono::steady_clock::now();
    const std::time_t start_time = std::time(nullptr);
    update_options update = reporting_options(req, inv, *image);
    in_place_options& options = update.patch;
    options.patch.require_checksum = req.verify;
    if (req.max_output > 0) options.patch.max_output = static_cast<std::uint64_t>(req.max_output);
    options.allow_unrecorded = req.force;
    const bool forced = req.progress.value_or(false);
    const bool show = !req.quiet && progress_wanted(inv.as_rdiff, req.progress ? &forced : nullptr);
    std::unique_ptr<progress_meter> meter;  // its total is known after the check pass
    options.progress = [&](std::uint64_t done, std::uint64_t total) {
        if (!meter)
            meter =
                std::make_unique<progress_meter>(show, "patch --in-place (image)", static_cast<std::int64_t>(total));
        meter->update(static_cast<std::int64_t>(done));
    };
    // rdelta-test's batches: small ones, so that a crash can land between many of
    // them, and a SIGKILL or SIGSTOP right after one (core/test_hooks.hpp).
    detail::test_hooks::steer_in_place(options.batch_bytes, options.after_batch);
    {
        auto probe = (*opener)();  // the name errors give the delta
        if (!probe) return report(inv, probe.err());
        options.patch.delta_name = (*probe)->name();
    }
    auto updated = update_in_place(*image, *opener, update);
    if (updated && updated->journal_moved_away) warn_moved(inv, updated->journal);
    result<in_place_stats> done = updated ? result<in_place_stats>(updated->stats) : updated.err();
    // The summary counts what the progress line counted: the image, holes apart.
    if (meter) done ? meter->summary(done->job.out_bytes, done->job.holes_skipped) : meter->finish();
    if (!done) return report(inv, done.err());
    if (done->up_to_date) {
        if (!req.quiet)
            std::fprintf(
                stderr, "%s: %s: already up to date: its manifest matches %s's checksum trailer; nothing was written\n",
                inv.prog.c_str(), image->name().c_str(), options.patch.delta_name.c_str());
    } else if (done->basis == in_place_stats::basis_check::no_manifest && !req.quiet) {
        std::fprintf(stderr,
                     "%s: warning: %s names the version of %s it was made for, but %s has no current manifest to "
                     "check it against; the patch was verified against the delta's trailer only\n",
                     inv.prog.c_str(), options.patch.delta_name.c_str(), image->name().c_str(), image->name().c_str());
    }
    if (!done->has_trailer && !req.quiet)
        std::fprintf(stderr, "%s: warning: %s has no checksum trailer: the patched %s cannot be verified\n",
                     inv.prog.c_str(), options.patch.delta_name.c_str(), image->name().c_str());
    if (req.verify && !req.quiet && !done->up_to_date)
        std::fprintf(stderr, "%s: %s: verified %" PRId64 " bytes against the delta's XXH3-128 checksum\n",
                     inv.prog.c_str(), image->name().c_str(), done->job.out_bytes);
    if (done->point_kept && req.verbose)
        std::fprintf(stderr, "%s: %s: kept the image before this patch as restore point 1 (%" PRIu64 " bytes, in %s)\n",
                     inv.prog.c_str(), image->name().c_str(), done->point_bytes, updated->history.c_str());
    if (req.json)
        std::fprintf(stderr,
                     "{\"command\": \"patch --in-place\", \"in_bytes\": %" PRId64 ", \"out_bytes\": %" PRId64
                     ", \"image_bytes_written\": %" PRIu64 ", \"journal_bytes_written\": %" PRIu64
                     ", \"syncs\": %" PRIu64 ", \"verified\": %s, \"verify_bytes_read\": %" PRIu64
                     ", \"manifest_used\": %s"
                     ", \"manifest_published\": %s, \"up_to_date\": %s, \"basis\": \"%s\", \"point_kept\": %" PRIu64
                     ", \"point_bytes\": %" PRIu64 ", \"holes_skipped\": %" PRId64
                     ", \"seconds\": {\"check\": %.3f, \"verify_before\": %.3f, \"write\": %.3f, \"verify_after\": %.3f"
                     ", \"commit\": %.3f}, \"elapsed_s\": %.3f}\n",
                     done->job.in_bytes, done->job.out_bytes, done->image_bytes_written, done->journal_bytes_written,
                     done->syncs, done->has_trailer ? "true" : "false", done->verify_bytes_read,
                     done->manifest_used ? "true" : "false", done->manifest_published ? "true" : "false",
                     done->up_to_date ? "true" : "false", basis_word(done->basis), done->point_kept, done->point_bytes,
                     done->job.holes_skipped, done->seconds.check, done->seconds.verify_before, done->seconds.write,
                     done->seconds.verify_after, done->seconds.commit,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (req.statistics) {
        std::fprintf(stderr, "librsync: %s\n", format_stats(done->job, start_time, std::time(nullptr)).c_str());
        if (!inv.as_rdiff) {
            const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            rusage ru{};
            getrusage(RUSAGE_SELF, &ru);
            std::fprintf(stderr,
                         "%s: in place: wrote %" PRIu64 " bytes to the image and %" PRIu64 " to the journal, %" PRIu64
                         " syncs; read %" PRIu64 " bytes of it to verify (%s); elapsed %.3f s, peak memory %.1f MiB\n",
                         inv.prog.c_str(), done->image_bytes_written, done->journal_bytes_written, done->syncs,
                         done->verify_bytes_read,
                         done->manifest_used ? "unchanged chunks from its manifest" : "no manifest describing it", secs,
                         static_cast<double>(ru.ru_maxrss) / 1024.0);
        }
    }
    return exit_success;
}

int recover_command(const request& req, const invocation& inv) {
    if (req.files.size() != 1) return report_usage(inv, "Usage for recover: " + inv.prog + " recover IMAGE");
    auto image = in_place_fd::open(req.files[0]);
    if (!image) return report(inv, image.err());
    bool anything = false;
    update_options o = reporting_options(req, inv, *image);
    auto say = o.on_recovered;
    o.on_recovered = [&](const recovery_result& r, const std::string& j) { anything = true, say(r, j); };
    auto rewritten = o.on_rewrite_finished;
    o.on_rewrite_finished = [&](const std::string& s) { anything = true, rewritten(s); };
    auto done = recover_image(*image, o);
    if (done && done->journal_moved_away) warn_moved(inv, done->journal);
    if (!done) return report(inv, done.err());
    if (!anything)
        std::fprintf(stderr, "%s: %s: no interrupted in-place patch or rewrite: nothing to do\n", inv.prog.c_str(),
                     image->name().c_str());
    return exit_success;
}

namespace {

std::string ranges_text(const scrub_report& r) {
    std::string text;
    for (const auto& [from, to] : r.mismatches)
        text += (text.empty() ? "" : ", ") + std::to_string(from) + ".." + std::to_string(to);
    if (r.mismatches.size() == 64) text += ", ...";
    return text;
}

}  // namespace

int verify_command(const request& req, const invocation& inv) {
    auto image = in_place_fd::open(req.files[0]);
    if (!image) return report(inv, image.err());
    if (auto locked = image->lock(); !locked) return report(inv, locked.err());
    auto journal = open_journal_file(*image);
    if (!journal) return report(inv, journal.err());
    if ((*journal)->exists())
        return report(inv, fail(errc::io_error, image->name() + ": an in-place patch was interrupted: run `" +
                                                    inv.prog + " recover " + image->name() + "` first"));
    auto manifest = open_manifest_file(*image);
    if (!manifest) return report(inv, manifest.err());
    auto r = scrub_against_manifest(*image, **manifest);
    if (!r) return report(inv, fail(r.err().code, image->name() + ": " + r.err().message));
    const char* prog = inv.prog.c_str();
    const char* name = image->name().c_str();
    if (req.json)
        std::printf("{\"command\": \"verify\", \"size\": %" PRIu64 ", \"chunk_size\": %" PRIu64 ", \"chunks\": %" PRIu64
                    ", \"bytes_read\": %" PRIu64 ", \"changed_since_manifest\": %s, \"mismatched_chunks\": %" PRIu64
                    ", \"clean\": %s}\n",
                    r->size, r->chunk_size, r->chunks, r->bytes_read, r->changed_since ? "true" : "false",
                    r->mismatched_chunks, r->clean() ? "true" : "false");
    if (r->changed_since && !r->clean())
        std::fprintf(stderr, "%s: %s: changed since its manifest was written (not by an in-place patch of rdelta's)\n",
                     prog, name);
    else if (r->changed_since && !req.quiet)
        std::fprintf(stderr,
                     "%s: %s: its change time moved since its manifest was written (a metadata change or a "
                     "rolled-back patch), but its data did not\n",
                     prog, name);
    if (r->mismatched_chunks > 0)
        std::fprintf(stderr, "%s: %s: %" PRIu64 " chunks of %" PRIu64 " bytes differ from its manifest, at bytes %s\n",
                     prog, name, r->mismatched_chunks, r->chunk_size, ranges_text(*r).c_str());
    const int history_rc = req.check_history ? verify_history_command(req, inv, *image) : exit_success;
    if (!r->clean()) return exit_code(errc::corrupt);
    if (history_rc != exit_success) return history_rc;
    if (!req.quiet)
        std::fprintf(stderr,
                     "%s: %s: %" PRIu64 " bytes match its manifest (%" PRIu64 " chunks; %" PRIu64 " bytes read)\n",
                     prog, name, r->size, r->chunks, r->bytes_read);
    return exit_success;
}

}  // namespace rdelta::cli
