// output_queue.hpp - bytes a job has produced but the caller has not taken yet.
// Storage is not zero-filled and is compacted as the caller drains it, so a
// queue that is never fully drained stays small. A queue given a spill sink hands
// its bytes to it whenever a threshold is reached, so the storage stays small and
// in the cache, and nothing is copied a second time into a caller's window.
#pragma once

#include <rdelta/io.hpp>
#include <rdelta/job.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>

namespace rdelta::detail {

class output_queue {
public:
    /// Room for n more bytes at the end, counted as produced. With a spill sink,
    /// fill it before the next call: that call may hand it over.
    std::uint8_t* reserve(std::size_t n) {
        if (spill_ && end_ - read_ >= spill_at_) spill();
        if (end_ + n > capacity_) make_room(n);
        std::uint8_t* p = data_.get() + end_;
        end_ += n;
        return p;
    }
    void append(const std::uint8_t* p, std::size_t n) {
        if (n) std::memcpy(reserve(n), p, n);
    }
    /// Move as much as fits into the caller's output window; return bytes moved.
    std::size_t drain(buffers& io) noexcept {
        const std::size_t n = std::min(io.avail_out, end_ - read_);
        if (n) std::memcpy(io.next_out, data_.get() + read_, n);
        io.next_out += n, io.avail_out -= n, read_ += n;
        if (read_ == end_) read_ = end_ = 0;
        return n;
    }
    bool empty() const noexcept { return read_ == end_; }
    std::size_t size() const noexcept { return end_ - read_; }

    /// Make room for n more bytes at once, exactly: a caller that knows a bound on
    /// what it will produce saves the doubling's overshoot (memory is the limit
    /// when inputs of tens of MiB are scanned in one call).
    void expect(std::size_t n) {
        if (!spill_ && end_ + n > capacity_) make_room(n, true);
    }

    /// From now on, whenever `at` bytes are queued, pass them to `sink` (which must
    /// outlive the setting); nullptr stops that. The first failure is kept
    /// (spill_error()) and later bytes are dropped.
    void spill_to(const byte_sink* sink, std::size_t at = std::size_t{256} << 10) noexcept {
        spill_ = sink, spill_at_ = std::max<std::size_t>(at, 1);
    }
    /// Pass everything queued to the spill sink now; a queue filled while there was
    /// no sink (over twice the threshold) goes in pieces of the threshold.
    void spill() {
        while (read_ < end_ && !spill_error_) {
            const std::size_t left = end_ - read_;
            const std::size_t n = left > 2 * spill_at_ ? spill_at_ : left;
            if (auto sent = (*spill_)({data_.get() + read_, n}); !sent)
                spill_error_ = std::move(sent).err();
            else
                spilled_ += n, read_ += n;
        }
        read_ = end_ = 0;
    }
    /// With a spill sink: pass what is queued, then `n` bytes at `p` straight to the
    /// sink, without copying them into the queue first; false (nothing done) without one.
    bool pass_through(const std::uint8_t* p, std::size_t n) {
        if (!spill_) return false;
        spill();
        if (spill_error_) return true;  // later bytes are dropped, as in spill()
        if (auto sent = (*spill_)({p, n}); !sent)
            spill_error_ = std::move(sent).err();
        else
            spilled_ += n;
        return true;
    }
    const std::optional<error>& spill_error() const noexcept { return spill_error_; }
    /// Bytes passed to spill sinks so far.
    std::uint64_t spilled() const noexcept { return spilled_; }

private:
    void make_room(std::size_t n, bool exact = false) {
        const std::size_t live = end_ - read_;
        if (read_ > 0 && live + n <= capacity_) {  // compact in place
            std::memmove(data_.get(), data_.get() + read_, live);
        } else {
            const std::size_t cap = std::max({exact ? 0 : capacity_ * 2, live + n, std::size_t{4096}});
            auto bigger = std::make_unique_for_overwrite<std::uint8_t[]>(cap);
            if (live) std::memcpy(bigger.get(), data_.get() + read_, live);
            data_ = std::move(bigger);
            capacity_ = cap;
        }
        read_ = 0, end_ = live;
    }

    std::unique_ptr<std::uint8_t[]> data_;
    std::size_t capacity_ = 0, read_ = 0, end_ = 0;
    const byte_sink* spill_ = nullptr;
    std::size_t spill_at_ = 0;
    std::optional<error> spill_error_;
    std::uint64_t spilled_ = 0;
};

}  // namespace rdelta::detail
