// write_batch.cpp - queued in-place writes: journal the batch, sync, then write it.
#include "write_batch.hpp"

#include <algorithm>
#include <cstring>

namespace rdelta::detail {

namespace {

constexpr std::size_t max_ops = 1 << 16;                      // bounds the queue's own memory
constexpr std::uint64_t save_piece = std::uint64_t{1} << 20;  // contiguous regions saved together, up to this
constexpr std::size_t zero_piece = 1 << 20;                   // zeros are written (and tested for holes) in pieces

bool all_zero(const std::uint8_t* p, std::size_t n) {
    return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0);
}

const std::vector<std::uint8_t>& zeros() {
    static const std::vector<std::uint8_t> z(zero_piece, 0);
    return z;
}

}  // namespace

write_batch::write_batch(in_place_file& file, journal_writer* journal, std::uint64_t batch_bytes,
                         std::function<void(std::uint64_t)> after_batch)
    : file_(file),
      journal_(journal),
      batch_bytes_(std::max<std::uint64_t>(batch_bytes, 1)),
      after_batch_(std::move(after_batch)) {}

std::size_t write_batch::literal_room() const noexcept {
    return std::max<std::size_t>(literal_capacity - data_.size(), 1);
}

// Journal the old content of a region as soon as it is queued (it stays intact
// until the batch runs), so the batch size counts the journal's data bytes: a COPY
// of zeros across a hole of many GiB saves a hole record and does not end a batch.
// A region that continues the one noted before joins it, and they are saved
// together (one journal record, not one per command) once they reach save_piece,
// the batch size, or a region elsewhere; flush() saves the rest before any write.
result<void> write_batch::note(std::uint64_t dst, std::uint64_t len) {
    if (pending_to_ != pending_from_ && dst != pending_to_)
        if (auto s = save_pending(); !s) return s;
    if (pending_to_ == pending_from_) pending_from_ = pending_to_ = dst;
    pending_to_ += len;
    if (pending_to_ - pending_from_ >= save_piece || queued_ + (pending_to_ - pending_from_) >= batch_bytes_)
        return save_pending();
    return {};
}

result<void> write_batch::save_pending() {
    const std::uint64_t dst = pending_from_, len = pending_to_ - pending_from_;
    pending_from_ = pending_to_ = 0;
    if (len == 0) return {};
    if (!journal_) {
        queued_ += len;
        return {};
    }
    if (auto s = journal_->save(dst, len); !s) return s;
    queued_ = journal_->bytes_written() - journal_mark_;
    return {};
}

bool write_batch::full() const noexcept {
    return queued_ >= batch_bytes_ || ops_.size() >= max_ops || data_.size() >= literal_capacity;
}

result<void> write_batch::queue(op o) {
    if (auto n = note(o.dst, o.len); !n) return n;
    op* last = ops_.empty() ? nullptr : &ops_.back();
    // Contiguous pieces of one kind become one write; a move, when its source
    // continues too. Run front to back in pieces, the joined move reads each source
    // byte before it is overwritten exactly when the parts would: the in-place check
    // let each part through, so each source starts after its destination (and then
    // so does the whole, by the same distance) or lies before the destinations of
    // this part and the earlier ones.
    if (last && last->kind == o.kind && last->dst + last->len == o.dst &&
        (o.kind != op_kind::move || last->src + last->len == o.src))
        last->len += o.len;
    else
        ops_.push_back(o);
    return full() ? flush() : result<void>{};
}

result<void> write_batch::literal(std::uint64_t dst, std::span<const std::uint8_t> bytes) {
    // Zeros are queued without their bytes: over a hole they are not written at all.
    if (all_zero(bytes.data(), bytes.size())) return queue({op_kind::zeros, dst, bytes.size(), 0});
    if (data_.size() + bytes.size() > literal_capacity)
        if (auto f = flush(); !f) return f;
    if (auto n = note(dst, bytes.size()); !n) return n;
    // At most two allocations for the literal bytes (a small one, then the full
    // capacity), not a doubling series whose copies add to the peak memory.
    if (data_.capacity() == 0)
        data_.reserve(std::min(literal_capacity, std::max<std::size_t>(bytes.size(), 1 << 16) * 4));
    if (data_.capacity() < data_.size() + bytes.size()) data_.reserve(literal_capacity);
    const std::uint64_t at = data_.size();
    data_.insert(data_.end(), bytes.begin(), bytes.end());
    op* last = ops_.empty() ? nullptr : &ops_.back();
    if (last && last->kind == op_kind::bytes && last->dst + last->len == dst && last->src + last->len == at)
        last->len += bytes.size();
    else
        ops_.push_back({op_kind::bytes, dst, bytes.size(), at});
    return full() ? flush() : result<void>{};
}

result<void> write_batch::move(std::uint64_t src, std::uint64_t dst, std::uint64_t len) {
    return queue({op_kind::move, dst, len, src});
}

result<void> write_batch::flush() {
    if (auto s = save_pending(); !s) return s;
    if (journal_) {
        // Also with nothing saved: the first batch makes the journal valid, so that a
        // file that only grows is truncated back by a rollback.
        if (auto d = journal_->make_durable(); !d) return d;
        journal_mark_ = journal_->bytes_written();
    }
    for (const op& o : ops_)
        if (auto r = run(o); !r) return r;
    ops_.clear(), data_.clear();
    queued_ = 0;
    if (after_batch_) after_batch_(++batches_);
    return {};
}

result<void> write_batch::write(std::uint64_t pos, std::span<const std::uint8_t> bytes) {
    started_ = true;
    if (auto w = file_.write(pos, bytes); !w) return w;
    image_written_ += bytes.size();
    return {};
}

// Zeros at `pos`, except over holes: halves are tried until each is a hole or small,
// so a region that is mostly hole costs a few queries per data extent.
result<void> write_batch::write_zeros(std::uint64_t pos, std::uint64_t len) {
    constexpr std::uint64_t small = std::uint64_t{64} << 10;
    if (file_.is_hole(pos, len)) return {};
    if (len <= small) return write_zeros_over_data(pos, len);
    const std::uint64_t half = std::max<std::uint64_t>(((pos + len / 2) & ~std::uint64_t{4095}) - pos, 1);
    if (auto w = write_zeros(pos, half); !w) return w;
    return write_zeros(pos + half, len - half);
}

// Zeros over the stored parts of [pos, pos + len) only: the holes in it stay holes
// (writing zeros there would allocate them, and a patch applied again to an image it
// already made would change its layout).
result<void> write_batch::write_zeros_over_data(std::uint64_t pos, std::uint64_t len) {
    for (const std::uint64_t end = pos + len; pos < end;) {
        const auto [hole, length] = file_.extent(pos, end - pos);
        const std::uint64_t n = length > 0 ? std::min(length, end - pos) : end - pos;
        if (!hole)
            if (auto w = write(pos, {zeros().data(), static_cast<std::size_t>(n)}); !w) return w;
        pos += n;
    }
    return {};
}

result<void> write_batch::run(const op& o) {
    switch (o.kind) {
        case op_kind::bytes: {
            const std::span<const std::uint8_t> bytes(data_.data() + o.src, static_cast<std::size_t>(o.len));
            return write(o.dst, bytes);
        }
        case op_kind::zeros:
            for (std::uint64_t done = 0; done < o.len;) {
                const std::uint64_t n = std::min<std::uint64_t>(zero_piece, o.len - done);
                if (auto w = write_zeros(o.dst + done, n); !w) return w;
                done += n;
            }
            return {};
        case op_kind::move: break;
    }
    // Front to back, which is safe as the source starts after the destination.
    if (!copy_buf_) copy_buf_ = make_aligned_bytes(zero_piece);
    for (std::uint64_t done = 0; done < o.len;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(zero_piece, o.len - done));
        if (file_.is_hole(o.src + done, n)) {  // holes in the source are not read
            if (auto w = write_zeros(o.dst + done, n); !w) return w;
            done += n;
            continue;
        }
        std::size_t got = 0;
        while (got < n) {
            auto r = file_.read(o.src + done + got, {copy_buf_.get() + got, n - got});
            if (!r) return std::move(r).err();
            if (*r == 0) return fail(errc::input_ended, "basis ended while copying");
            got += *r;
        }
        if (all_zero(copy_buf_.get(), n)) {
            if (auto w = write_zeros(o.dst + done, n); !w) return w;
        } else if (auto w = write(o.dst + done, {copy_buf_.get(), n}); !w) {
            return w;
        }
        done += n;
    }
    return {};
}

}  // namespace rdelta::detail
