// write_batch.hpp - the writes of an in-place patch, queued in batches so that the
// old content of a whole batch is journaled (and synced once) before any of its
// regions is written. A batch ends at batch_bytes of journal, 16 MiB of literal
// data or 65536 queued writes.
//
// Writes that continue one another cost one queued write and one journal record,
// not one per command: a delta of a million short COPYs of one region is a few long
// moves. Contiguous regions are saved to the journal together, up to 1 MiB at a
// time, still before the batch writes any of them.
//
// Queued writes cost no memory for moved data (a COPY's source is still intact when
// the batch runs: the in-place check guarantees no earlier write touches it) nor for
// zeros; only literal bytes are held, up to literal_capacity.
#pragma once

#include "core/aligned_buffer.hpp"
#include "journal_writer.hpp"

#include <rdelta/in_place.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace rdelta::detail {

class write_batch {
public:
    /// `journal` may be null (no journal: writes go straight out, batch by batch).
    write_batch(in_place_file& file, journal_writer* journal, std::uint64_t batch_bytes,
                std::function<void(std::uint64_t)> after_batch = {});

    /// Queue literal bytes for [dst, dst + bytes.size()); may run the batch first.
    result<void> literal(std::uint64_t dst, std::span<const std::uint8_t> bytes);
    /// Queue a copy of basis [src, src + len) to dst (src > dst or disjoint).
    result<void> move(std::uint64_t src, std::uint64_t dst, std::uint64_t len);
    /// Journal and write what is queued.
    result<void> flush();
    /// Room left for literal bytes before the batch must run (at least 1).
    std::size_t literal_room() const noexcept;

    /// Whether any write reached the file.
    bool started() const noexcept { return started_; }
    std::uint64_t image_bytes_written() const noexcept { return image_written_; }

    static constexpr std::size_t literal_capacity = std::size_t{16} << 20;

private:
    enum class op_kind : std::uint8_t { bytes, zeros, move };
    struct op {
        op_kind kind;
        std::uint64_t dst, len, src;  // src: the move's source, or the offset in data_
    };
    result<void> note(std::uint64_t dst, std::uint64_t len);
    result<void> save_pending();
    bool full() const noexcept;
    result<void> queue(op o);
    result<void> run(const op& o);
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes);
    result<void> write_zeros(std::uint64_t pos, std::uint64_t len);
    result<void> write_zeros_over_data(std::uint64_t pos, std::uint64_t len);

    in_place_file& file_;
    journal_writer* journal_;
    std::uint64_t batch_bytes_;
    std::vector<op> ops_;
    std::vector<std::uint8_t> data_;
    aligned_bytes copy_buf_;    // allocated by the first move; read into
    std::uint64_t queued_ = 0;  // journal bytes of this batch (without a journal: bytes it overwrites)
    std::uint64_t pending_from_ = 0, pending_to_ = 0;  // queued, old content not saved yet
    std::uint64_t journal_mark_ = 0;                   // journal size when the batch began
    bool started_ = false;
    std::uint64_t image_written_ = 0, batches_ = 0;
    std::function<void(std::uint64_t)> after_batch_;
};

}  // namespace rdelta::detail
