// delta.cpp - delta generation, reproducing librsync 2.3.2's scan exactly.
//
// The scan keeps `start` (first byte not yet encoded), `scan` (pending literal
// bytes after start) and a pending COPY. While strictly more than one block of
// lookahead remains, the block-long window at start+scan is looked up; on a miss
// the weak sum rolls one byte. At end of input the window shrinks from the front
// (suffixes of the file are tried). Literal runs are cut at 32768 bytes and copies
// merge only when contiguous in the basis. The strong sum of a window is computed
// only when its weak key is in the index.
#include "block_index.hpp"
#include "command_writer.hpp"
#include "output_queue.hpp"
#include "weak_sum.hpp"
#include "../hash/strong_sum.hpp"

#include <rdelta/delta.hpp>

#include <algorithm>
#include <optional>

namespace rdelta {

namespace {

template <weak_kind Kind>
using weak_state = std::conditional_t<Kind == weak_kind::rollsum, detail::rollsum, detail::rabinkarp>;

// An empty signature: each input chunk becomes one literal (librsync's "slack" delta).
class slack_delta_job final : public job {
public:
    slack_delta_job() : writer_(out_, stats_) {
        stats_.op = "delta";
        writer_.magic(static_cast<std::uint32_t>(magic::delta));
    }

    result<job_status> iterate(buffers& io) override {
        if (io.avail_in > 0) {
            writer_.literal(io.next_in, io.avail_in);
            stats_.in_bytes += static_cast<std::int64_t>(io.avail_in);
            io.next_in += io.avail_in, io.avail_in = 0;
        }
        if (io.eof_in && !ended_) writer_.end(), ended_ = true;
        stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
        return ended_ && out_.empty() ? job_status::done : job_status::blocked;
    }
    const job_stats& stats() const noexcept override { return stats_; }

private:
    detail::output_queue out_;
    job_stats stats_;
    detail::command_writer writer_;
    bool ended_ = false;
};

template <weak_kind Kind>
class delta_job final : public job {
public:
    explicit delta_job(const signature& sig)
        : index_(*sig.index()),
          block_len_(sig.params().block_len),
          strong_(sig.params().format().strong),
          writer_(out_, stats_) {
        stats_.op = "delta";
        writer_.magic(static_cast<std::uint32_t>(magic::delta));
    }

    result<job_status> iterate(buffers& io) override {
        if (io.avail_in > 0) {
            buf_.insert(buf_.end(), io.next_in, io.next_in + io.avail_in);
            stats_.in_bytes += static_cast<std::int64_t>(io.avail_in);
            io.next_in += io.avail_in, io.avail_in = 0;
            scan_full_windows();
            compact();
        }
        if (io.eof_in && !ended_) {
            scan_tail();
            flush();
            writer_.end();
            ended_ = true;
            buf_.clear(), start_ = 0;
        }
        stats_.out_bytes += static_cast<std::int64_t>(out_.drain(io));
        return ended_ && out_.empty() ? job_status::done : job_status::blocked;
    }
    const job_stats& stats() const noexcept override { return stats_; }

private:
    // Phase A: windows of a whole block, while more than a block of data follows.
    void scan_full_windows() {
        const std::uint8_t* d = buf_.data();
        const std::size_t end = buf_.size();
        const std::size_t bl = block_len_;
        while (start_ + scan_ + bl < end) {
            const std::size_t pos = start_ + scan_;
            if (weak_.count == 0) weak_.init(d + pos, bl);
            const std::int64_t block = lookup(d + pos, bl);
            if (block >= 0) {
                append_match(static_cast<std::uint64_t>(block) * bl, bl);
                weak_.count = 0;
            } else {
                weak_.rotate(d[pos], d[pos + bl]);
                append_miss();
            }
        }
    }

    // Phase B, at end of input: ever shorter suffixes of the file.
    void scan_tail() {
        const std::uint8_t* d = buf_.data();
        const std::size_t end = buf_.size();
        while (start_ + scan_ < end) {
            const std::size_t pos = start_ + scan_;
            if (weak_.count == 0) weak_.init(d + pos, std::min<std::size_t>(block_len_, end - pos));
            const std::size_t len = weak_.count;
            const std::int64_t block = lookup(d + pos, len);
            if (block >= 0) {
                append_match(static_cast<std::uint64_t>(block) * block_len_, len);
                weak_.count = 0;
            } else {
                weak_.rollout(d[pos]);
                append_miss();
            }
        }
    }

    std::int64_t lookup(const std::uint8_t* window, std::size_t len) {
        ++stats_.searches;
        const std::uint32_t key = detail::weak_key<Kind>(weak_.digest());
        bool key_found = false;
        const std::int64_t block = index_.find(key, [&] {
            key_found = true;
            ++stats_.strong_calcs;
            detail::strong_sum(strong_, window, len, digest_);
            return digest_;
        });
        stats_.weak_hits += key_found;
        stats_.matches += block >= 0;
        return block;
    }

    void append_match(std::uint64_t pos, std::size_t len) {
        if (copy_len_ > 0 && copy_pos_ + copy_len_ == pos) {
            copy_len_ += len;
        } else {
            flush();
            copy_pos_ = pos, copy_len_ = len;
        }
        start_ += scan_ + len;
        scan_ = 0;
    }

    void append_miss() {
        if (copy_len_ > 0 || scan_ >= max_literal_run) flush();
        ++scan_;
    }

    void flush() {
        if (copy_len_ > 0) {
            writer_.copy(copy_pos_, copy_len_);
            copy_len_ = 0;
        } else if (scan_ > 0) {
            writer_.literal(buf_.data() + start_, scan_);
            start_ += scan_;
            scan_ = 0;
        }
    }

    // Drop bytes before `start`, which are encoded already.
    void compact() {
        if (start_ == 0 || start_ < buf_.size() / 2) return;
        buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(start_));
        start_ = 0;
    }

    const block_index& index_;
    const std::size_t block_len_;
    const strong_kind strong_;
    detail::output_queue out_;
    job_stats stats_;
    detail::command_writer writer_;
    std::vector<std::uint8_t> buf_;
    std::size_t start_ = 0, scan_ = 0;
    std::uint64_t copy_pos_ = 0, copy_len_ = 0;
    weak_state<Kind> weak_;
    std::uint8_t digest_[detail::digest_stride];
    bool ended_ = false;
};

class failed_job final : public job {
public:
    explicit failed_job(error e) : error_(std::move(e)) {}
    result<job_status> iterate(buffers&) override { return error_; }
    const job_stats& stats() const noexcept override { return stats_; }

private:
    error error_;
    job_stats stats_;
};

}  // namespace

std::unique_ptr<job> make_delta_job(const signature& sig) {
    if (sig.block_count() == 0) return std::make_unique<slack_delta_job>();
    if (!sig.index())
        return std::make_unique<failed_job>(
            fail(errc::internal_error, "delta needs the signature's index: call build_index() first"));
    if (sig.params().format().weak == weak_kind::rollsum)
        return std::make_unique<delta_job<weak_kind::rollsum>>(sig);
    return std::make_unique<delta_job<weak_kind::rabinkarp>>(sig);
}

}  // namespace rdelta
