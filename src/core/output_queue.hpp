// output_queue.hpp - bytes a job has produced but the caller has not taken yet.
#pragma once

#include <rdelta/job.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

namespace rdelta::detail {

class output_queue {
public:
    /// Room for n more bytes at the end; commit() them after writing.
    std::uint8_t* reserve(std::size_t n) {
        if (read_ == data_.size()) data_.clear(), read_ = 0;
        const std::size_t old = data_.size();
        data_.resize(old + n);
        return data_.data() + old;
    }
    /// Drop the unused part of the last reserve().
    void shrink_by(std::size_t unused) { data_.resize(data_.size() - unused); }
    void append(const std::uint8_t* p, std::size_t n) {
        if (n) std::memcpy(reserve(n), p, n);
    }
    /// Move as much as fits into the caller's output window; return bytes moved.
    std::size_t drain(buffers& io) noexcept {
        const std::size_t n = std::min(io.avail_out, data_.size() - read_);
        if (n) std::memcpy(io.next_out, data_.data() + read_, n);
        io.next_out += n, io.avail_out -= n, read_ += n;
        if (read_ == data_.size()) data_.clear(), read_ = 0;
        return n;
    }
    bool empty() const noexcept { return read_ == data_.size(); }
    std::size_t size() const noexcept { return data_.size() - read_; }

private:
    std::vector<std::uint8_t> data_;
    std::size_t read_ = 0;
};

}  // namespace rdelta::detail
