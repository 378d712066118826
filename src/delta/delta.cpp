// delta.cpp - delta jobs: the slack delta of an empty signature, and the
// streaming wrapper around the matcher (matcher.hpp holds the exact algorithm).
#include "core/exception_guard.hpp"
#include "core/job_pacing.hpp"
#include "core/output_queue.hpp"
#include "core/test_hooks.hpp"
#include "delta_job.hpp"
#include "format/checksum_trailer.hpp"
#include "format/command_writer.hpp"
#include "match/index_access.hpp"
#include "match/matcher.hpp"
#include "match/parallel_scan.hpp"

#include <rdelta/delta.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

namespace rdelta {

namespace {

// An empty signature: each input chunk becomes one literal (librsync's "slack" delta).
class slack_delta_job final : public job {
public:
    slack_delta_job(bool checksum, const std::optional<std::array<std::uint8_t, 16>>& basis_root,
                    detail::job_pacing pacing)
        : writer_(out_, stats_), checksum_(checksum), basis_root_(basis_root), pacing_(pacing) {
        stats_.op = "delta";
        writer_.magic(static_cast<std::uint32_t>(magic::delta));
    }

    result<job_status> iterate(buffers& io) override {
        if (pacing_ == detail::job_pacing::librsync) return iterate_paced(io);
        if (io.avail_in > 0) {
            writer_.literal(io.next_in, io.avail_in);
            sum_.update(io.next_in, io.avail_in);
            stats_.in_bytes += static_cast<std::int64_t>(io.avail_in);
            io.next_in += io.avail_in, io.avail_in = 0;
        }
        if (io.eof_in && !ended_) end();
        stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
        return ended_ && out_.empty() ? job_status::done : job_status::blocked;
    }
    const job_stats& stats() const noexcept override { return stats_; }

private:
    // librsync's pace (job_pacing.hpp): once the output held is out, the input
    // offered becomes one LITERAL, whose bytes are then copied from the input as
    // the output has room, and taken only as they are copied: the caller offers
    // the rest again, as librsync's tube copies a literal straight from the input.
    result<job_status> iterate_paced(buffers& io) {
        for (;;) {
            stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
            if (!out_.empty()) return job_status::blocked;
            if (literal_left_ > 0) {
                const std::size_t n = std::min({literal_left_, io.avail_in, io.avail_out});
                if (n) std::memcpy(io.next_out, io.next_in, n);
                if (checksum_) sum_.update(io.next_in, n);
                io.next_in += n, io.avail_in -= n, io.next_out += n, io.avail_out -= n;
                stats_.in_bytes += static_cast<std::int64_t>(n), stats_.out_bytes += static_cast<std::int64_t>(n);
                literal_left_ -= n;
                if (literal_left_ > 0 && io.eof_in && io.avail_in == 0)
                    return fail(errc::input_ended,
                                "delta: input ended while copying LITERAL data: " + std::to_string(literal_left_) +
                                    " bytes offered before were not offered again");
                if (literal_left_ > 0) return job_status::blocked;
            }
            if (io.avail_in > 0) {
                writer_.literal_command(io.avail_in);
                literal_left_ = io.avail_in;
            } else if (io.eof_in && !ended_) {
                end();
            } else {
                return ended_ ? job_status::done : job_status::blocked;
            }
        }
    }

    void end() {
        writer_.end();
        if (checksum_)
            sum_.write_trailer(out_.reserve(detail::stream_checksum::trailer_size(true, basis_root_)), basis_root_);
        ended_ = true;
    }

    detail::output_queue out_;
    job_stats stats_;
    detail::command_writer writer_;
    detail::stream_checksum sum_;
    bool checksum_;
    std::optional<std::array<std::uint8_t, 16>> basis_root_;
    detail::job_pacing pacing_;
    std::size_t literal_left_ = 0;  // librsync's pace: bytes of the last LITERAL not copied yet
    bool ended_ = false;
};

// Scans the caller's input in place; only the bytes not yet encoded at the end of
// a call (at most a literal run plus a block) are carried over to the next call.
// With `gather_bytes`, inputs smaller than that are gathered first and scanned
// together (small_input_gather()).
template <weak_kind Kind>
class delta_job final : public detail::zero_aware_delta_job {
public:
    delta_job(const signature& sig, delta_options options, std::unique_ptr<const block_index> own_index,
              std::size_t gather_bytes, detail::job_pacing pacing)
        : own_index_(std::move(own_index)),
          index_(own_index_ ? *own_index_ : *detail::index_access::of(sig)),
          block_len_(sig.params().block_len),
          strong_(sig.params().format().strong),
          threads_(options.threads ? options.threads : detail::default_threads()),
          checksum_(options.checksum),
          basis_root_(options.basis_root),
          gather_bytes_(gather_bytes),
          pacing_(pacing),
          work_per_byte_(work_factor(sig, options.max_strong_work)),
          writer_(out_, stats_),
          matcher_(index_, block_len_, strong_, writer_, stats_, budget_, options.in_place_safe) {
        stats_.op = "delta";
        writer_.magic(static_cast<std::uint32_t>(magic::delta));
    }

    result<job_status> iterate(buffers& io) override {
        if (auto over = check_budget(); !over) return over.err();  // also after feed_zeros
        if (pacing_ == detail::job_pacing::librsync) {
            // librsync's pace (job_pacing.hpp): its job scans only once all it made
            // is out, and then takes all the input offered.
            stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
            if (!out_.empty()) return job_status::blocked;
        }
        if (io.avail_in > 0 && !ended_) {
            // Kept bytes passed again were counted and summed when they came first.
            const std::size_t repeated = repeats_kept_ ? std::min(carry_.size(), io.avail_in) : 0;
            if (repeated > 0) {  // positions are relative to the kept bytes, now the input's start
                carry_.clear();
                detail::test_hooks::count(detail::test_hooks::event::kept_bytes_repeated, 1);
            }
            repeats_kept_ = false;
            if (checksum_) sum_.update(io.next_in + repeated, io.avail_in - repeated);
            stats_.in_bytes += static_cast<std::int64_t>(io.avail_in - repeated);
            set_budget();
            scan_input(io.next_in, io.avail_in);
            io.next_in += io.avail_in, io.avail_in = 0;
            if (auto over = check_budget(); !over) return over.err();
        }
        if (io.eof_in && !ended_) {
            set_budget();
            scan_gathered();
            matcher_.scan_tail(carry_.data(), carry_.size());
            if (auto over = check_budget(); !over) return over.err();
            matcher_.flush();
            writer_.end();
            if (checksum_)
                sum_.write_trailer(out_.reserve(detail::stream_checksum::trailer_size(true, basis_root_)), basis_root_);
            ended_ = true;
            carry_ = {};
        }
        stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
        return ended_ && out_.empty() ? job_status::done : job_status::blocked;
    }
    const job_stats& stats() const noexcept override { return stats_; }

    result<void> push_to(std::span<const std::uint8_t> in, bool eof, const byte_sink& sink) override {
        return spilling_to(sink, [&] {
            buffers io{in.data(), in.size(), eof, nullptr, 0};
            return iterate(io);
        });
    }

    result<void> push_zeros_to(std::uint64_t n, const byte_sink& sink) override {
        return spilling_to(sink, [&] {
            feed_zeros(n);
            buffers io{nullptr, 0, false, nullptr, 0};
            return iterate(io);  // checks the budget
        });
    }

    std::size_t kept_bytes() const noexcept override { return carry_.size(); }
    void next_input_repeats_kept() noexcept override { repeats_kept_ = true; }

    void feed_zeros(std::uint64_t n) override {
        repeats_kept_ = false;
        if (ended_ || failed_ || n == 0) return;
        scan_gathered();
        stats_.in_bytes += static_cast<std::int64_t>(n);
        set_budget();
        if (checksum_) sum_zeros(n);
        // Zeros are appended to the carried bytes, not read from a buffer of zeros:
        // such a buffer is a block more of memory even when nothing writes to it
        // (Linux 6.18 gave each page read from a fresh mapping a page of its own).
        // A run that continues the last one needs no scan: the window is in it already.
        const bool continued = in_zero_run_ && matcher_.knows_zero_sums();
        std::size_t zero_from = zero_from_;  // where the run of zeros starts in carry_
        if (!continued) {
            // Enough zeros scanned normally that the window lies in the run of zeros.
            const std::size_t prefix = block_len_ + max_literal_run + 64;
            if (n < 2 * std::uint64_t{prefix}) {
                for (std::uint64_t left = n; left > 0; left -= std::min<std::uint64_t>(left, prefix)) {
                    scan_zeros(static_cast<std::size_t>(std::min<std::uint64_t>(left, prefix)));
                    drop_encoded();
                }
                return;
            }
            zero_from = carry_.size();
            scan_zeros(prefix);
            n -= prefix;
        }
        // Positions are relative to the carried bytes, which end in the run of zeros
        // (after a scan, in at least a block of them: the skip computes their sums there).
        const std::size_t run_end = carry_.size() + static_cast<std::size_t>(n);
        const std::uint8_t* const zero_block = continued ? nullptr : carry_.data() + carry_.size() - block_len_;
        // The last all-zero window is left to the scan: it is the last whose successor is unknown.
        matcher_.skip_zero_windows(carry_.data(), run_end > block_len_ ? run_end - block_len_ : 0, carry_.size(),
                                   zero_block);
        keep_zero_run(matcher_.start(), zero_from, run_end);
        in_zero_run_ = true;
    }

private:
    // Allowed strong hashing per input byte: the caller's factor plus twice what an
    // honest signature costs on data that does not match (basis size / 2^32).
    static std::uint64_t work_factor(const signature& sig, std::uint64_t factor) {
        if (factor == 0) return 0;
        const auto basis = static_cast<long double>(sig.block_count()) * sig.params().block_len;
        const auto honest = static_cast<std::uint64_t>(basis / 4294967296.0L) + 1;
        return factor + 2 * honest;
    }

    void set_budget() noexcept {
        budget_.limit =
            detail::work_budget::limit_for(work_per_byte_, static_cast<std::uint64_t>(stats_.in_bytes), block_len_);
    }

    // Over budget: the job fails, and output not yet handed out is dropped.
    result<void> check_budget() {
        if (failed_) return *failed_;
        if (!budget_.exceeded()) return {};
        out_ = {};
        char text[200];
        std::snprintf(text, sizeof text,
                      "delta stopped: the signature made it strong-hash over %llu bytes for %lld input bytes, "
                      "more than the work budget (max_strong_work %llu per byte) allows",
                      static_cast<unsigned long long>(budget_.limit), static_cast<long long>(stats_.in_bytes),
                      static_cast<unsigned long long>(work_per_byte_));
        failed_ = fail(errc::mem_error, text);
        return *failed_;
    }

    // Room for the most `pending` bytes can produce: all literal (3 command bytes
    // per run) or one COPY per block.
    void expect_output(std::size_t pending) {
        out_.expect(pending + 3 * (pending / max_literal_run + 2) + 17 * (pending / block_len_ + 2));
    }

    void scan_input(const std::uint8_t* in, std::size_t n) {
        in_zero_run_ = false;
        if (n < gather_bytes_) return gather_input(in, n);
        scan_gathered();
        expect_output(carry_.size() + n);
        if (!carry_.empty()) {
            // Join the carried bytes with enough input that the scan moves past
            // all of them: a literal run is at most 32768 bytes behind the window.
            const std::size_t carried = carry_.size();
            const std::size_t take = std::min(n, block_len_ + max_literal_run + 64);
            carry_room(carried + take);
            carry_.insert(carry_.end(), in, in + take);
            matcher_.scan_full(carry_.data(), carry_.size());
            if (take == n) {
                drop_encoded();
                return;
            }
            matcher_.rebase(carried);  // now relative to `in`
            carry_.clear();
        }
        scan_range(in, n);
        carry_room(n - matcher_.start());
        carry_.assign(in + matcher_.start(), in + n);
        matcher_.rebase(matcher_.start());
    }

    // Phase A over in[0, n), on all threads when there is enough to share.
    void scan_range(const std::uint8_t* in, std::size_t n) {
        const std::size_t pos = matcher_.position();  // may already be past n - block_len
        if (threads_ > 1 && pos + block_len_ < n && n - block_len_ - pos >= threads_ * detail::min_segment(block_len_))
            detail::scan_parallel(matcher_, index_, block_len_, strong_, in, n, threads_, stats_, budget_);
        else
            matcher_.scan_full(in, n);
    }

    // Appends a small input to the carried bytes, scanning them whenever they
    // reach gather_bytes_: positions stay relative to the carried bytes' start.
    void gather_input(const std::uint8_t* in, std::size_t n) {
        while (n > 0) {
            // The kept bytes (a block and a literal run at most) leave room; were
            // they to fill it, the rest is taken whole rather than looping.
            const std::size_t take = carry_.size() < gather_bytes_ ? std::min(n, gather_bytes_ - carry_.size()) : n;
            // Grown by doubling, as small inputs need little, but not past gather_bytes_.
            if (carry_.size() + take > carry_.capacity())
                carry_.reserve(std::min(gather_bytes_, std::max(2 * carry_.capacity(), carry_.size() + take)));
            carry_.insert(carry_.end(), in, in + take);
            in += take, n -= take;
            gathered_ = true;
            if (carry_.size() >= gather_bytes_) scan_gathered();
        }
    }

    // Scans what gather_input() collected, keeping the bytes not encoded yet.
    void scan_gathered() {
        if (!gathered_) return;
        gathered_ = false;
        expect_output(carry_.size());
        scan_range(carry_.data(), carry_.size());
        drop_encoded();
    }

    // Room for `n` carried bytes. Grown by doubling up to the most they hold between
    // inputs (two blocks and two literal runs: kept bytes and the input joined to
    // them), so that storage as large as a block is allocated a few times at most;
    // never more than twice the bytes actually carried, so a signature that claims
    // huge blocks makes no large allocation for a small input.
    void carry_room(std::size_t n) {
        if (n <= carry_.capacity()) return;
        const std::size_t most = 2 * (block_len_ + max_literal_run + 64);
        carry_.reserve(std::max(n, std::min(most, 2 * std::max(n, carry_.capacity()))));
    }

    // scan_input() of `n` zeros, appended to the carried bytes (which it would copy
    // them into anyway, or scan on one thread, as they are at most a block and a
    // literal run), without dropping the bytes encoded.
    void scan_zeros(std::size_t n) {
        in_zero_run_ = false;
        expect_output(carry_.size() + n);
        carry_room(carry_.size() + n);
        carry_.resize(carry_.size() + n, 0);
        matcher_.scan_full(carry_.data(), carry_.size());
    }

    // Carry what is not encoded yet, carry_[start, run_end): real bytes of a pending
    // literal (before zero_from), then zeros, which run past carry_'s end. In
    // carry_'s own storage (a second copy would be a block more), and writing only
    // what is not zero already: a long run, passed in pieces, costs O(1) per piece.
    void keep_zero_run(std::size_t start, std::size_t zero_from, std::size_t run_end) {
        std::uint8_t* const d = carry_.data();
        const std::size_t real = start < zero_from ? zero_from - start : 0, size = run_end - start;
        if (real > 0) std::memmove(d, d + start, real);
        // Bytes past `real` that can be non-zero: the old ones before zero_from.
        const std::size_t dirty = std::min({zero_from, size, carry_.size()});
        if (dirty > real) std::memset(d + real, 0, dirty - real);
        carry_room(size);
        carry_.resize(size, 0);
        zero_from_ = real;
        matcher_.rebase(start);
    }

    void sum_zeros(std::uint64_t n) { sum_.update_zeros(n); }

    // Runs `work` (a job_status result) with the output queue handing its bytes to `sink`.
    template <class Work>
    result<void> spilling_to(const byte_sink& sink, Work&& work) {
        struct spilling {
            detail::output_queue& out;
            spilling(detail::output_queue& q, const byte_sink& sink) : out(q) { out.spill_to(&sink); }
            ~spilling() { out.spill_to(nullptr); }
        } spill(out_, sink);
        const std::uint64_t before = out_.spilled();
        if (auto status = work(); !status) return std::move(status).err();
        out_.spill();
        if (out_.spill_error()) return *out_.spill_error();
        stats_.out_bytes += static_cast<std::int64_t>(out_.spilled() - before);
        return {};
    }

    void drop_encoded() {
        const std::size_t done = matcher_.start();
        carry_.erase(carry_.begin(), carry_.begin() + static_cast<std::ptrdiff_t>(done));
        matcher_.rebase(done);
    }

    std::unique_ptr<const block_index> own_index_;  // when the signature's would not do
    const block_index& index_;
    const std::size_t block_len_;
    const strong_kind strong_;
    const unsigned threads_;
    const bool checksum_;
    const std::optional<std::array<std::uint8_t, 16>> basis_root_;
    const std::size_t gather_bytes_;  // 0: every input is scanned as it comes
    const detail::job_pacing pacing_;
    const std::uint64_t work_per_byte_;  // 0: no budget
    detail::work_budget budget_;
    std::optional<error> failed_;
    detail::stream_checksum sum_;
    detail::output_queue out_;
    job_stats stats_;
    detail::command_writer writer_;
    detail::matcher<Kind> matcher_;
    std::vector<std::uint8_t> carry_;
    bool ended_ = false;
    bool in_zero_run_ = false;   // carry_ ends in zeros that start at or before the window (feed_zeros)
    std::size_t zero_from_ = 0;  // with in_zero_run_: where they start in carry_
    bool repeats_kept_ = false;  // the next input starts with carry_ (next_input_repeats_kept)
    bool gathered_ = false;      // carry_ holds gathered input not scanned yet
};

}  // namespace

namespace detail {

result<std::unique_ptr<zero_aware_delta_job>> make_scanning_delta_job(const signature& sig, delta_options options,
                                                                      std::size_t gather_bytes, job_pacing pacing) {
    std::unique_ptr<const block_index> own;
    const block_index* shared = index_access::of(sig);
    if (!shared || shared->keeps_duplicates() != options.in_place_safe) {
        auto built = block_index::build(sig, options.in_place_safe);
        if (!built) return std::move(built).err();
        own = std::make_unique<const block_index>(std::move(*built));
    }
    std::unique_ptr<zero_aware_delta_job> j;
    if (sig.params().format().weak == weak_kind::rollsum)
        j = std::make_unique<delta_job<weak_kind::rollsum>>(sig, options, std::move(own), gather_bytes, pacing);
    else
        j = std::make_unique<delta_job<weak_kind::rabinkarp>>(sig, options, std::move(own), gather_bytes, pacing);
    return j;
}

}  // namespace detail

std::size_t delta_chunk_size(const signature& sig, unsigned threads) {
    const std::size_t bl = sig.params().block_len;
    const std::size_t cores = threads ? threads : detail::default_threads();
    const std::size_t shared = cores > 1 ? cores * detail::min_segment(bl) + 2 * bl : 0;
    return std::clamp<std::size_t>(shared, std::size_t{8} << 20, std::size_t{32} << 20);
}

// Inputs smaller than this are gathered before they are scanned. A scan of a few
// KiB, as a network peer sends them, ran one block at a time: a matching block's
// strong sum alone instead of with the next 15 in one multi-buffer call, on one
// core, ten times slower (bench/README.md, "Measurements behind design choices").
// Enough for the scan to split
// among the threads or to hash 16 blocks ahead, within one delta chunk; none for
// blocks so large that a chunk holds fewer than four.
namespace {
std::size_t small_input_gather(const signature& sig, unsigned threads) {
    const std::size_t bl = sig.params().block_len, cores = threads ? threads : detail::default_threads();
    const std::size_t ahead = std::max(cores > 1 ? cores * detail::min_segment(bl) : 0, 16 * bl);
    const std::size_t gather = std::min(delta_chunk_size(sig, threads), ahead + 2 * bl + max_literal_run + 64);
    return gather >= 4 * bl ? gather : 0;
}
}  // namespace

namespace detail {
std::unique_ptr<job> make_delta_job_gathering(const signature& sig, delta_options options, std::size_t gather_bytes,
                                              job_pacing pacing) {
    return make_guarded_job("delta", [&]() -> std::unique_ptr<job> {
        if (sig.block_count() == 0)
            return std::make_unique<slack_delta_job>(options.checksum, options.basis_root, pacing);
        auto j = make_scanning_delta_job(sig, options, gather_bytes, pacing);
        if (!j) return make_failed_job(std::move(j).err());
        return std::unique_ptr<job>(std::move(*j));
    });
}
}  // namespace detail

std::unique_ptr<job> make_delta_job(const signature& sig, delta_options options) {
    return detail::make_delta_job_gathering(sig, options,
                                            sig.block_count() == 0 ? 0 : small_input_gather(sig, options.threads),
                                            detail::job_pacing::batched);
}

}  // namespace rdelta
