// in_place.cpp - patching a basis file in place: check the whole delta, then write
// it in journaled batches.
//
// The delta is read as a stream, once per pass: pass 1 checks it, pass 2 (only
// with a checksum trailer) hashes the would-be output, pass 3 writes. Writes are
// queued in batches (write_batch.cpp) whose old regions are journaled and synced
// before any of them is written.
#include "basis_check.hpp"
#include "core/test_hooks.hpp"
#include "extent_memo.hpp"
#include "format/checksum_trailer.hpp"
#include "format/command_stream.hpp"
#include "in_place_check.hpp"
#include "journal_writer.hpp"
#include "keep_point.hpp"
#include "manifest_refresh.hpp"
#include "output_hash.hpp"
#include "write_batch.hpp"

#include <rdelta/history.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/journal.hpp>
#include <rdelta/manifest.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <vector>

namespace rdelta {

using detail::check;
using detail::check_command;
using detail::check_result;
using detail::dirty_regions;
using detail::find_trailer;

namespace {

constexpr std::size_t chunk_bytes = std::size_t{1} << 20;

// Seconds since the last call (the first: since it was made), for in_place_stats::seconds.
class lap_timer {
public:
    double lap() {
        const auto now = std::chrono::steady_clock::now();
        const double s = std::chrono::duration<double>(now - last_).count();
        last_ = now;
        return s;
    }

private:
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Pass 3: every command queued into write batches, which journal and then write.
// Progress follows the image: the output offset reached, of the new size. Zeros
// copied from a hole onto a hole are `holes` (neither read nor written).
result<void> apply(byte_source& in, in_place_file& file, detail::write_batch& batch, const check_result& checked,
                   std::uint64_t basis_size, const patch_options& options,
                   const std::function<void(std::uint64_t, std::uint64_t)>& progress, std::uint64_t& holes) {
    detail::command_stream reader(in);
    if (auto started = reader.start(); !started) return started;
    dirty_regions dirty;
    detail::extent_memo source_holes(file), holes_now(file);  // COPYs of zeros mostly read one block
    std::uint64_t out = 0;
    for (;;) {
        auto c = reader.next();
        if (!c) return std::move(c).err();
        if (c->kind == detail::cmd_kind::end) break;
        if (auto ok = check_command(*c, out, basis_size, dirty, options); !ok) return ok;
        if (c->kind == detail::cmd_kind::literal) {
            for (std::uint64_t at = out; reader.literal_left() > 0;) {
                auto piece = reader.literal_piece(batch.literal_room());
                if (!piece) return std::move(piece).err();
                if (auto q = batch.literal(at, *piece); !q) return q;
                at += piece->size();
                if (progress) progress(at, checked.out_size);
            }
        } else if (c->pos != out) {
            // Zeros from a hole onto a hole, unwritten both: nothing to write or journal.
            if (source_holes.is_hole(c->pos, c->len) && holes_now.is_hole(out, c->len))
                holes += c->len;
            else if (auto q = batch.move(c->pos, out, c->len); !q)
                return q;
        }
        out += c->len;
        if (progress) progress(out, checked.out_size);
    }
    if (out != checked.out_size || reader.consumed() != checked.delta_size)
        return fail(errc::corrupt, options.delta_name + ": changed while it was being applied");
    return batch.flush();
}

// Read the file back through the basis_reader interface verify_trailer() takes.
class file_reader final : public basis_reader {
public:
    explicit file_reader(in_place_file& f) : f_(f) {}
    // Holes inside the range are not read either, as the rest of an in-place patch
    // does not read them: verifying a sparse image stays cheap.
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        std::size_t done = 0;
        while (done < out.size()) {
            const std::uint64_t at = pos + done;
            if (at >= f_.size()) break;
            const auto [hole, run] = f_.extent(at, std::min<std::uint64_t>(out.size() - done, f_.size() - at));
            const auto n = static_cast<std::size_t>(std::max<std::uint64_t>(run, 1));
            if (hole) {
                std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(done), n, 0);
                done += n;
                continue;
            }
            auto r = f_.read(at, out.subspan(done, n));
            if (!r) return std::move(r).err();
            done += *r;
            if (*r < n) break;
        }
        return done;
    }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override { return f_.is_hole(pos, len); }

private:
    in_place_file& f_;
};

// After a failure past the first write: put the old file back from the journal.
error roll_back(error e, in_place_file& file, journal_storage* journal, manifest_storage* manifest) {
    if (!journal) return fail(e.code, e.message + " (no journal: the file may be part old, part new)");
    auto undone = recover_in_place(file, *journal, nullptr, manifest);
    if (!undone)
        return fail(e.code,
                    e.message + "; rolling back failed too (" + undone.err().message + "): the file must be recovered",
                    remedy::recover);
    if (undone->action == recovery_action::rolled_back)
        return fail(e.code, e.message + "; the file was rolled back unchanged");
    return e;
}

// A delta as it is read, hashed on the way: a delta without a checksum trailer is
// remembered by its digest.
class hashing_source final : public byte_source {
public:
    explicit hashing_source(byte_source& in) : in_(in) {}
    result<std::size_t> read_full(std::span<std::uint8_t> out) override {
        auto got = in_.read_full(out);
        if (got) sum_.update(out.data(), *got);
        return got;
    }
    std::optional<std::uint64_t> size() const noexcept override { return in_.size(); }
    const std::string& name() const noexcept override { return in_.name(); }
    std::array<std::uint8_t, 16> digest() const noexcept { return sum_.digest(); }

private:
    byte_source& in_;
    detail::stream_checksum sum_{detail::stream_checksum::whole};
};

// A delta without trailer may be applied only where the file can remember it, and
// never to the file it made, unchanged since.
result<void> check_not_applied(in_place_file& file, const std::array<std::uint8_t, 16>& digest,
                               const in_place_options& options, const std::string& image_name) {
    if (const auto last = file.last_applied(); last && last->digest == digest)
        return fail(errc::corrupt, options.patch.delta_name + ": already applied to " + image_name +
                                       ", which is unchanged since (a delta without checksum trailer cannot tell its "
                                       "basis from its output); nothing was changed");
    if (!file.can_remember_applied() && !options.allow_unrecorded)
        return fail(errc::io_error,
                    options.patch.delta_name + ": has no checksum trailer, and " + image_name +
                        " cannot record that it was applied (no extended attributes here), so applying "
                        "it twice would go unnoticed: refused",
                    remedy::allow_unrecorded);
    return {};
}

// A delta that does not apply may have been applied already (a retried job): with a
// trailer, the file then matches it. Such a delta is refused as corrupt, as a delta
// whose checks pass but whose would-be output does not match; with the file's
// manifest, a delta already applied is no error (up to date) and one made for
// another version of the file is named so.
result<in_place_stats> explain_refusal(error e, const delta_opener& open, in_place_file& file,
                                       const in_place_options& in_place) {
    const patch_options& options = in_place.patch;
    if (e.code != errc::input_ended && e.code != errc::param_error) return e;
    auto in = open();
    if (!in) return e;
    auto trailer = find_trailer(**in);
    if (!trailer) return e;
    const auto basis = detail::check_basis(in_place.manifest, file, *trailer);
    if (basis.verdict == detail::basis_verdict::up_to_date) {
        in_place_stats stats;
        stats.up_to_date = stats.has_trailer = true;
        return stats;
    }
    if (basis.verdict == detail::basis_verdict::other_basis)
        return fail(errc::corrupt, detail::other_basis_message(options.delta_name, *trailer, basis.image_root));
    if (trailer->empty() || detail::trailer_length(trailer->data()) != file.size()) return e;
    file_reader reader(file);
    if (!verify_trailer(*trailer, reader, file.size(), options.delta_name)) return e;
    return fail(errc::corrupt, options.delta_name + ": already applied: the file matches the delta's checksum trailer");
}

}  // namespace

namespace {

// The manifest of the file as the patch left it, once committed: its change time
// is taken after the last change the patch makes to it. A failure only costs the
// next patch a whole read (the old manifest no longer matches the change time).
bool publish_manifest(in_place_file& file, detail::manifest_stager& stager, const check_result& checked,
                      const in_place_options& options) {
    if (!stager.active()) return false;
    detail::manifest_header h;
    h.chunk_size = detail::trailer_chunk_size(checked.trailer.data());
    h.length = checked.out_size;
    std::tie(h.dev, h.ino) = file.identity();
    std::tie(h.ctime_s, h.ctime_ns) = file.change_time();
    std::copy_n(checked.trailer.begin() + 16, 16, h.root.begin());
    if (h.ino == 0 || (h.ctime_s == 0 && h.ctime_ns == 0) || !stager.finish(h)) {
        stager.discard();
        return false;
    }
    return static_cast<bool>(options.manifest->publish());
}

// Pass 3 and the commit, once passes 1 and 2 accepted the delta. Every allocation
// failure is caught here, after the objects that hold memory are gone, and rolls
// back like any other error.
result<in_place_stats> write_in_place(const delta_opener& open, in_place_file& file, const in_place_options& options,
                                      const check_result& checked,
                                      const std::optional<std::array<std::uint8_t, 16>>& digest,
                                      detail::manifest_stager& stager, const detail::output_hash_result& before,
                                      std::optional<detail::point_footer> point, in_place_stats stats) {
    const patch_options& popt = options.patch;
    const std::uint64_t old_size = file.size(), new_size = checked.out_size;
    // Asked before the journal's note changes the file's ctime: a manifest that
    // describes the file now can be brought up to date if the patch is interrupted.
    std::uint32_t journal_flags = 0;
    if (options.manifest && detail::manifest_is_current(*options.manifest, file))
        journal_flags = detail::journal_manifest_current;
    bool started = false;
    lap_timer timer;
    auto written = [&]() -> result<void> {
        try {
            std::optional<detail::journal_writer> journal;
            if (options.journal) {
                journal.emplace(*options.journal, file, journal_flags);
                if (auto b = journal->begin(); !b) return b;
            } else {
                (void)file.mark_journaled("", 0);  // nothing will restore it: the note alone says it may be torn
            }
            detail::write_batch batch(file, journal ? &*journal : nullptr, options.batch_bytes, options.after_batch);
            auto run = [&]() -> result<void> {
                auto again = open();
                if (!again) return std::move(again).err();
                std::uint64_t holes = 0;
                auto a = apply(**again, file, batch, checked, old_size, popt, options.progress, holes);
                stats.job.holes_skipped = static_cast<std::int64_t>(holes);
                if (!a) return a;
                if (new_size > old_size)
                    if (auto r = file.resize(new_size); !r) return r;
                if (auto s = file.sync(); !s) return s;
                stats.seconds.write = timer.lap();
                if (detail::is_chunk_trailer(checked.trailer.data(), checked.trailer.size())) {
                    auto v = detail::verify_after_writing(file, checked.trailer, old_size, new_size, options.manifest,
                                                          before, popt);
                    if (!v) return std::move(v).err();
                    stats.verify_bytes_read += *v;
                } else if (stats.has_trailer) {
                    file_reader reader(file);
                    if (auto v = verify_trailer(checked.trailer, reader, new_size, popt.delta_name); !v) return v;
                }
                stats.seconds.verify_after = timer.lap();
                if (digest)
                    if (auto r = file.remember_applied({*digest, new_size}); !r) return r;
                // A point keeps the bytes a shrinking patch cuts off, as well.
                if (journal && point && new_size < old_size)
                    if (auto r = journal->save(new_size, old_size - new_size); !r) return r;
                if (journal)
                    if (auto c = journal->commit(new_size, point ? &*point : nullptr); !c) return c;
                if (new_size < old_size) {
                    if (auto r = file.resize(new_size); !r) return r;
                    if (auto s = file.sync(); !s) return s;
                }
                if (digest) file.settle_applied();
                return {};
            };
            auto done = run();
            started = batch.started();
            stats.image_bytes_written = batch.image_bytes_written();
            stats.syncs = 1 + (new_size < old_size);
            if (journal) stats.journal_bytes_written = journal->bytes_written(), stats.syncs += journal->syncs();
            return done;
        } catch (const std::bad_alloc&) {
            started = true;  // unknown: the journal decides
            return fail(errc::mem_error, popt.delta_name + ": out of memory while patching in place");
        }
    }();
    if (!written) {
        stager.discard();
        if (!started) {  // the image was not touched: the journal just goes
            file.clear_journal_mark();
            // The note came and went: the manifest names the change time before it.
            if (journal_flags && !detail::manifest_is_current(*options.manifest, file))
                (void)detail::restamp_manifest(*options.manifest, file);
            if (options.journal) (void)options.journal->remove();
            return std::move(written).err();
        }
        if (!options.journal) file.forget_applied();
        return roll_back(std::move(written).err(), file, options.journal, options.manifest);
    }
    detail::test_hooks::in_place_committed();
    if (point) {
        // The journal becomes the newest point, then the note goes: a crash between
        // the two leaves a committed journal that recovery keeps the same way.
        auto kept = options.keep_history->adopt(*options.journal);
        if (!kept) {
            stager.discard();
            return fail(kept.err().code, "the patch is complete and verified, but keeping its restore point failed: " +
                                             kept.err().message + " (the journal was left: recovery keeps it)");
        }
        stats.point_kept = kept->seq, stats.point_bytes = kept->stored_bytes;
    }
    file.clear_journal_mark();  // whole and synced: a journal only finishes the size now
    // The manifest before the journal goes: a crash between the two leaves a stale
    // journal, whose recovery empties a manifest that does not describe the file.
    stats.manifest_published = publish_manifest(file, stager, checked, options);
    // A delta without a chunked trailer leaves the old manifest describing the old
    // file: emptied, so that a scrub does not take the patch for a foreign change.
    if (!stats.manifest_published && options.manifest) detail::clear_manifest(*options.manifest);
    if (options.journal && !point)
        if (auto r = options.journal->remove(); !r) return std::move(r).err();
    stats.seconds.commit = timer.lap();
    return stats;
}

result<in_place_stats> patch_in_place_checked(const delta_opener& open, in_place_file& file,
                                              const in_place_options& options) {
    in_place_stats stats;
    if (options.journal) {
        auto recovered = recover_in_place(file, *options.journal, options.keep_history, options.manifest);
        if (!recovered) return std::move(recovered).err();
        stats.recovered =
            recovered->action == recovery_action::rolled_back || recovered->action == recovery_action::completed;
    }
    const patch_options& popt = options.patch;
    lap_timer timer;
    auto in = open();
    if (!in) return std::move(in).err();
    hashing_source hashed(**in);
    auto checked = check(hashed, file, popt, stats.job, nullptr);
    stats.seconds.check = timer.lap();
    if (!checked) return explain_refusal(std::move(checked).err(), open, file, options);
    stats.has_trailer = !checked->trailer.empty();
    // The manifest alone says whether the delta is for this version of the file.
    const auto basis = detail::check_basis(options.manifest, file, checked->trailer);
    if (basis.verdict == detail::basis_verdict::up_to_date) {
        stats.up_to_date = true;
        stats.job.checksum_verified = true;
        return stats;
    }
    if (basis.verdict == detail::basis_verdict::other_basis)
        return fail(errc::corrupt, detail::other_basis_message(popt.delta_name, checked->trailer, basis.image_root));
    if (detail::trailer_basis_root(checked->trailer.data(), checked->trailer.size()))
        stats.basis = basis.verdict == detail::basis_verdict::fits ? in_place_stats::basis_check::matched
                                                                   : in_place_stats::basis_check::no_manifest;
    std::optional<std::array<std::uint8_t, 16>> digest;
    const bool chunked = detail::is_chunk_trailer(checked->trailer.data(), checked->trailer.size());
    detail::manifest_stager stager(chunked ? options.manifest : nullptr);
    detail::output_hash_result before;
    if (chunked) {
        auto hashed = detail::verify_before_writing(open, file, checked->trailer, checked->out_size, options.manifest,
                                                    stager, popt);
        if (!hashed) {
            stager.discard();
            return std::move(hashed).err();
        }
        before = std::move(*hashed);
        stats.verify_bytes_read = before.bytes_read;
        stats.manifest_used = before.used_known;
        stats.job.checksum_verified = true;
    } else if (stats.has_trailer) {
        auto again = open();
        if (!again) return std::move(again).err();
        detail::stream_checksum sum(detail::stream_checksum::whole);  // a chunked trailer went above
        auto hashed_out = check(**again, file, popt, stats.job, &sum);
        if (!hashed_out) return std::move(hashed_out).err();
    } else {
        digest = hashed.digest();
        if (auto ok = check_not_applied(file, *digest, options, "the file"); !ok) return std::move(ok).err();
    }
    stats.seconds.verify_before = timer.lap();
    std::optional<detail::point_footer> point;
    if (options.keep_history) {
        if (!options.journal)
            return fail(errc::param_error, popt.delta_name + ": keeping history needs the undo journal");
        auto started = detail::start_point(file, checked->trailer, basis, checked->out_size, hashed.digest());
        if (!started) {
            stager.discard();
            return std::move(started).err();
        }
        point = *started;
    }
    return write_in_place(open, file, options, *checked, digest, stager, before, point, std::move(stats));
}

}  // namespace

result<in_place_stats> patch_in_place(const delta_opener& open, in_place_file& file, const in_place_options& options) {
    try {
        return patch_in_place_checked(open, file, options);
    } catch (const std::bad_alloc&) {  // before the first write: nothing to undo
        return fail(errc::mem_error, options.patch.delta_name + ": out of memory");
    }
}

result<job_stats> patch_in_place(std::span<const std::uint8_t> delta, in_place_file& file,
                                 const patch_options& options) {
    in_place_options o;
    o.patch = options;
    o.allow_unrecorded = true;  // no journal, no file layer: the caller keeps track
    const delta_opener open = [&]() -> result<std::unique_ptr<byte_source>> {
        return std::unique_ptr<byte_source>(std::make_unique<memory_source>(delta, options.delta_name));
    };
    auto done = patch_in_place(open, file, o);
    if (!done) return std::move(done).err();
    return done->job;
}

}  // namespace rdelta
