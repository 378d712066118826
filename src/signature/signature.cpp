// signature.cpp - the in-memory signature and the job that makes signature files.
#include "block_records.hpp"
#include "checksum/strong_sum.hpp"
#include "checksum/weak_sum.hpp"
#include "core/exception_guard.hpp"
#include "core/output_queue.hpp"
#include "core/parallel.hpp"
#include "format/signature_format.hpp"
#include "match/block_index.hpp"
#include "signature_job.hpp"
#include "slice_size.hpp"

#include <rdelta/signature.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace rdelta {

signature::signature() = default;
signature::signature(sig_params params) : params_(params) {}
signature::~signature() = default;
signature::signature(signature&&) noexcept = default;
signature& signature::operator=(signature&&) noexcept = default;

result<void> signature::add_block(std::uint32_t weak, std::span<const std::uint8_t> strong) {
    if (strong.size() != params_.strong_len)
        return fail(errc::param_error, "a strong sum of " + std::to_string(strong.size()) +
                                           " bytes added to a signature of " + std::to_string(params_.strong_len) +
                                           "-byte strong sums");
    try {
        weak_.push_back(weak);
        strong_.insert(strong_.end(), strong.begin(), strong.end());
    } catch (const std::bad_alloc&) {
        if (strong_.size() % params_.strong_len != 0)
            strong_.resize(strong_.size() - strong_.size() % params_.strong_len);
        if (weak_.size() > strong_.size() / params_.strong_len) weak_.pop_back();
        return fail(errc::mem_error, "out of memory for signature records");
    }
    index_.reset();  // the index points into strong_, which may have moved
    return {};
}

result<void> signature::reserve(std::size_t n) {
    try {
        weak_.reserve(n);
        strong_.reserve(n * params_.strong_len);
    } catch (const std::exception&) {  // bad_alloc, or length_error for absurd n
        return fail(errc::mem_error, "out of memory for " + std::to_string(n) + " signature records");
    }
    return {};
}

result<void> signature::build_index(bool keep_duplicates) {
    return detail::exceptions_as_errors("signature index", [&]() -> result<void> {
        auto built = block_index::build(*this, keep_duplicates);
        if (!built) return std::move(built).err();
        index_ = std::make_unique<block_index>(std::move(built).value());
        return {};
    });
}

std::size_t signature::memory_bytes() const noexcept {
    return weak_.capacity() * 4 + strong_.capacity() + (index_ ? index_->memory_bytes() : 0);
}

namespace {

// Reads the basis a block at a time; a full block straight from the caller's
// buffer when possible, a partial one through `pending_`.
class signature_job final : public job {
public:
    signature_job(const sig_params& params, job_options options, detail::job_pacing pacing)
        : params_(params), threads_(options.threads ? options.threads : detail::default_threads()), pacing_(pacing) {
        stats_.op = "signature";
    }

    result<job_status> iterate(buffers& io) override {
        if (failed_) return *failed_;
        if (!started_) {
            if (auto checked = start(); !checked) return *(failed_ = std::move(checked).err());
        }
        if (pacing_ == detail::job_pacing::librsync) return iterate_paced(io);
        consume(io);
        stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
        if (io.eof_in && io.avail_in == 0 && out_.empty()) {
            if (!pending_.empty()) {
                emit_blocks(pending_.data(), pending_.size());
                pending_.clear();
                stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
                if (!out_.empty()) return job_status::blocked;
            }
            return job_status::done;
        }
        return job_status::blocked;
    }

    const job_stats& stats() const noexcept override { return stats_; }

private:
    // librsync's pace (job_pacing.hpp): its job writes the header, then reads a block
    // whenever everything it made is out, and writes the block's record at once. So
    // the output held goes first; then, while none is held, a call takes a block for
    // each record its window has room for and one more, whose record is held.
    job_status iterate_paced(buffers& io) {
        const std::size_t bl = params_.block_len, record = params_.record_size();
        for (;;) {
            stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
            if (!out_.empty()) return job_status::blocked;
            if (io.avail_in == 0) break;
            const std::size_t blocks = io.avail_out / record + 1;
            const std::size_t most = blocks > std::numeric_limits<std::size_t>::max() / bl
                                         ? std::numeric_limits<std::size_t>::max()
                                         : blocks * bl - pending_.size() % bl;
            buffers part = io;
            part.avail_in = std::min(io.avail_in, most);
            const std::size_t offered = part.avail_in;
            consume(part);
            io.next_in = part.next_in, io.avail_in -= offered - part.avail_in;
        }
        if (!io.eof_in) return job_status::blocked;
        if (!pending_.empty()) {  // the short last block
            emit_blocks(pending_.data(), pending_.size());
            pending_.clear();
            stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
            if (!out_.empty()) return job_status::blocked;
        }
        return job_status::done;
    }

    result<void> start() {
        started_ = true;
        // Re-validate as librsync's job does (size unknown: no minimum-length warning).
        auto resolved = resolve_sig_params(
            {std::nullopt, params_.magic, params_.block_len, static_cast<std::int64_t>(params_.strong_len)});
        if (!resolved) return std::move(resolved).err();
        format_ = params_.format();
        const auto header = detail::signature_header(params_);
        std::memcpy(out_.reserve(header.size()), header.data(), header.size());
        stats_.block_len = params_.block_len;
        return {};
    }

    // Blocks in one thread's share of a batch (slice_size.hpp).
    std::size_t slice_blocks() const noexcept {
        return detail::blocks_per_slice(params_.block_len, detail::strong_sum_lanes(format_.strong), threads_,
                                        detail::parallel_grain);
    }

    // Only take more input while the output queue is small, to bound memory.
    // Blocks are hashed straight from the caller's buffer when it holds `gather`
    // of them; otherwise they are collected in `pending_` first: one multi-buffer
    // call's worth of small blocks (pieces of a few KiB, as a network peer sends
    // them, were hashed a block at a time, ten times slower), a slice
    // for every thread when blocks are so large that the caller's chunks hold
    // fewer than that (within slice_budget: one block when blocks are larger).
    void consume(buffers& io) {
        const std::size_t bl = params_.block_len;
        const std::size_t slice = slice_blocks();
        const std::size_t gather = slice * bl > detail::parallel_grain
                                       ? std::clamp<std::size_t>(detail::slice_budget / bl, 1, slice * threads_)
                                       : std::min(slice, detail::strong_sum_lanes(format_.strong));
        // Batches big enough to share among threads, small enough to stay in cache.
        const std::size_t batch_blocks = std::max({std::size_t{1}, threads_ * 4 * detail::parallel_grain / bl, gather});
        while (io.avail_in > 0 && out_.size() < (1u << 20)) {
            if (!pending_.empty() || io.avail_in / bl < gather) {
                const std::size_t take = std::min(gather * bl - pending_.size(), io.avail_in);
                pending_.reserve(gather * bl);  // grown by doubling it could take twice that
                pending_.insert(pending_.end(), io.next_in, io.next_in + take);
                advance(io, take);
                if (pending_.size() == gather * bl) {
                    emit_blocks(pending_.data(), gather * bl);
                    pending_.clear();
                }
                continue;
            }
            const std::size_t blocks = std::min(io.avail_in / bl, batch_blocks);
            emit_blocks(io.next_in, blocks * bl);
            advance(io, blocks * bl);
        }
        // Every block this call completed leaves with it, as librsync's job writes
        // each block's record on the call that completes the block: a caller that
        // feeds a block per call and waits for output would otherwise stall.
        const std::size_t whole = pending_.size() / bl * bl;
        if (io.avail_in == 0 && whole > 0) {
            emit_blocks(pending_.data(), whole);
            pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(whole));
        }
    }

    void advance(buffers& io, std::size_t n) {
        io.next_in += n, io.avail_in -= n;
        stats_.in_bytes += static_cast<std::int64_t>(n);
    }

    // Records for the blocks of p[0, len); slices of blocks are hashed in
    // parallel, each writing its records straight into the output.
    void emit_blocks(const std::uint8_t* p, std::size_t len) {
        const std::size_t count = detail::blocks_in(params_, len);
        std::uint8_t* o = out_.reserve(count * params_.record_size());
        detail::hash_block_records(params_, p, len, slice_blocks(), threads_, digests_, o);
        stats_.sig_blocks += static_cast<std::int64_t>(count);
    }

    sig_params params_;
    unsigned threads_;
    detail::job_pacing pacing_;
    sig_format format_;
    bool started_ = false;
    std::optional<error> failed_;
    std::vector<std::uint8_t> pending_;
    std::vector<std::uint8_t> digests_;
    detail::output_queue out_;
    job_stats stats_;
};

}  // namespace

std::unique_ptr<job> make_signature_job(const sig_params& params, job_options options) {
    return detail::make_signature_job_paced(params, options, detail::job_pacing::batched);
}

std::unique_ptr<job> detail::make_signature_job_paced(const sig_params& params, job_options options,
                                                      job_pacing pacing) {
    return make_guarded_job("signature", [&] { return std::make_unique<signature_job>(params, options, pacing); });
}

}  // namespace rdelta
