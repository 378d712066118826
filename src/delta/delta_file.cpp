// delta_file.cpp - deltas of random-access new files: data is read in large
// chunks, holes are not read at all but passed to the job as runs of zeros (or,
// for an empty signature, as chunks of zeros).
#include "core/aligned_buffer.hpp"
#include "core/exception_guard.hpp"
#include "delta_job.hpp"
#include "signature/signature_tap.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/patch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>

namespace rdelta {

namespace {

constexpr std::uint64_t hole_query_unit = std::uint64_t{1} << 20;  // granularity of hole queries
constexpr std::size_t kept_slack = 65536;  // a literal run (32 KiB) and then some, beyond a block

// The next read: a chunk, but the last two share what is left, so that the last
// is not so short that the job scans it on one core.
std::uint64_t balanced_chunk(std::uint64_t left, std::uint64_t chunk) {
    if (left <= chunk || left >= 2 * chunk) return chunk;
    return (left / 2 + hole_query_unit - 1) / hole_query_unit * hole_query_unit;
}

result<void> read_exactly(basis_reader& file, std::uint64_t pos, std::uint8_t* p, std::size_t n) {
    for (std::size_t got = 0; got < n;) {
        auto r = file.read(pos + got, {p + got, n - got});
        if (!r) return std::move(r).err();
        if (*r == 0) return fail(errc::input_ended, "the new file became shorter while it was read");
        got += *r;
    }
    return {};
}

// Length of the hole at `pos` (a multiple of hole_query_unit unless it reaches `size`), 0 if none.
std::uint64_t hole_length(basis_reader& file, std::uint64_t pos, std::uint64_t size) {
    std::uint64_t len = std::min(hole_query_unit, size - pos);
    if (!file.is_hole(pos, len)) return 0;
    while (len < size - pos) {  // gallop: large holes take few queries
        const std::uint64_t longer = std::min(len * 2, size - pos);
        if (!file.is_hole(pos, longer)) break;
        len = longer;
    }
    return len;
}

// Length of the data at `pos`, at most `limit`, ending where a hole unit starts.
std::uint64_t data_length(basis_reader& file, std::uint64_t pos, std::uint64_t size, std::uint64_t limit) {
    std::uint64_t len = 0;
    while (len < limit && pos + len < size) {
        const std::uint64_t unit = std::min({hole_query_unit, size - pos - len, limit - len});
        if (len > 0 && file.is_hole(pos + len, unit)) break;
        len += unit;
    }
    return len;
}

// Which of the slack delta's chunks lie in a hole. A hole is asked about once and
// galloped over; data once per hole unit, so a file without holes costs few queries
// (a hole that starts within a unit of data is read: at most a unit of zeros).
class slack_holes {
public:
    slack_holes(basis_reader& file, std::uint64_t size) : file_(file), size_(size) {}
    bool in_hole(std::uint64_t pos, std::uint64_t n) {
        if (pos + n <= hole_end_) return true;
        if (pos < data_end_) return false;
        if (!file_.is_hole(pos, n)) {
            data_end_ = (pos / hole_query_unit + 1) * hole_query_unit;
            return false;
        }
        std::uint64_t len = n;
        while (len < size_ - pos) {
            const std::uint64_t longer = std::min(len * 2, size_ - pos);
            if (!file_.is_hole(pos, longer)) break;
            len = longer;
        }
        hole_end_ = pos + len;
        return true;
    }

private:
    basis_reader& file_;
    std::uint64_t size_;
    std::uint64_t hole_end_ = 0;  // chunks ending by here are zeros
    std::uint64_t data_end_ = 0;  // chunks starting before here are read
};

// An empty signature: rdiff's slack delta follows its read size, the block length.
// A chunk in a hole is not read: a chunk of zeros makes the same literal, and the
// new signature takes the zero block's records for it without hashing.
result<job_stats> slack_delta_from(basis_reader& file, std::uint64_t size, const signature& sig, delta_options options,
                                   const byte_sink& sink, const delta_progress& progress, detail::signature_tap* tap) {
    auto j = make_delta_job(sig, options);
    job_pump pump(*j, sink);
    const std::size_t chunk = std::max<std::size_t>(1, sig.params().block_len);
    auto buf = detail::make_aligned_bytes(chunk);
    detail::aligned_bytes zeros;  // made at the first hole
    slack_holes holes(file, size);
    std::uint64_t skipped = 0;
    for (std::uint64_t pos = 0; pos < size;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size - pos));
        const std::uint8_t* bytes = buf.get();
        if (holes.in_hole(pos, n)) {
            if (!zeros) {
                zeros = detail::make_aligned_bytes(chunk);
                std::memset(zeros.get(), 0, chunk);
            }
            bytes = zeros.get();
            skipped += n;
            if (tap)
                if (auto r = tap->zeros(n); !r) return std::move(r).err();
        } else {
            if (auto r = read_exactly(file, pos, buf.get(), n); !r) return std::move(r).err();
            if (tap)
                if (auto r = tap->data({buf.get(), n}); !r) return std::move(r).err();
        }
        if (auto r = pump.push({bytes, n}, false); !r) return std::move(r).err();
        pos += n;
        if (progress) progress(pos);
    }
    if (auto r = pump.push({}, true); !r) return std::move(r).err();
    job_stats stats = j->stats();
    stats.holes_skipped = static_cast<std::int64_t>(skipped);
    return stats;
}

}  // namespace

namespace detail {
result<job_stats> delta_from(basis_reader& new_file, std::uint64_t size, const signature& sig, delta_options options,
                             const byte_sink& sink, const delta_progress& progress, signature_tap* tap);
}  // namespace detail

result<job_stats> make_delta_from(basis_reader& new_file, std::uint64_t size, const signature& sig,
                                  delta_options options, const byte_sink& sink, const delta_progress& progress,
                                  const new_signature_output* new_signature) {
    return detail::exceptions_as_errors("delta", [&]() -> result<job_stats> {
        if (!new_signature) return detail::delta_from(new_file, size, sig, options, sink, progress, nullptr);
        detail::signature_tap tap(new_signature->params, options.threads, new_signature->sink);
        auto made = detail::delta_from(new_file, size, sig, options, sink, progress, &tap);
        if (!made) return made;
        if (auto signed_ = tap.finish(); !signed_) return std::move(signed_).err();
        return made;
    });
}

// make_delta_from()'s body; allocation and thread failures throw.
result<job_stats> detail::delta_from(basis_reader& new_file, std::uint64_t size, const signature& sig,
                                     delta_options options, const byte_sink& sink, const delta_progress& progress,
                                     signature_tap* tap) {
    if (sig.block_count() == 0) return slack_delta_from(new_file, size, sig, options, sink, progress, tap);
    auto made = detail::make_scanning_delta_job(sig, options);
    if (!made) return std::move(made).err();
    auto& j = *made;
    const std::uint64_t block_len = sig.params().block_len;
    // Chunks of whole hole units, as the job scans best.
    const std::uint64_t chunk =
        (delta_chunk_size(sig, options.threads) + hole_query_unit - 1) / hole_query_unit * hole_query_unit;
    // Zeros are passed in pieces, so that progress is reported within long holes.
    const std::uint64_t zero_piece = std::max<std::uint64_t>(std::uint64_t{32} << 20, 4 * (block_len + 32768 + 64));
    // Room before each chunk for the bytes the job has not encoded yet (a block and a
    // literal run), passed again so that the job scans all of it in parallel. Not for
    // blocks as large as a chunk: memory stays about three blocks.
    // Reads land at `room` bytes in, on a cache line (aligned_buffer.hpp says why),
    // and the kept bytes go right before them.
    const std::size_t room = block_len + kept_slack <= chunk
                                 ? (static_cast<std::size_t>(block_len) + kept_slack + detail::read_alignment - 1) /
                                       detail::read_alignment * detail::read_alignment
                                 : 0;
    detail::aligned_bytes buf;
    std::uint64_t skipped = 0;           // hole bytes, not read
    std::uint8_t* last_start = nullptr;  // the last push's first byte when it was data
    std::size_t last_data = 0;           // bytes of the last push when it was data, else 0
    for (std::uint64_t pos = 0; pos < size;) {
        if (const std::uint64_t hole = hole_length(new_file, pos, size); hole > 0) {
            for (std::uint64_t done = 0; done < hole;) {
                const std::uint64_t piece = std::min(zero_piece, hole - done);
                if (auto r = j->push_zeros_to(piece, sink); !r) return std::move(r).err();
                done += piece;
                if (progress && done < hole) progress(pos + done);
            }
            if (tap)
                if (auto r = tap->zeros(hole); !r) return std::move(r).err();
            skipped += hole;
            pos += hole;
            last_data = 0;
        } else {
            const auto n =
                static_cast<std::size_t>(data_length(new_file, pos, size, balanced_chunk(size - pos, chunk)));
            if (!buf) buf = detail::make_aligned_bytes(static_cast<std::size_t>(std::min(chunk, size)) + room);
            std::uint8_t* const data = buf.get() + room;
            std::size_t kept = j->kept_bytes();
            if (kept > 0 && kept <= room && kept <= last_data) {
                std::memmove(data - kept, last_start + last_data - kept, kept);
                j->next_input_repeats_kept();
            } else {
                kept = 0;
            }
            if (auto r = read_exactly(new_file, pos, data, n); !r) return std::move(r).err();
            if (tap)
                if (auto r = tap->data({data, n}); !r) return std::move(r).err();
            if (auto r = j->push_to({data - kept, kept + n}, false, sink); !r) return std::move(r).err();
            pos += n;
            last_start = data - kept;
            last_data = kept + n;
        }
        if (progress) progress(pos);
    }
    if (auto r = j->push_to({}, true, sink); !r) return std::move(r).err();
    job_stats stats = j->stats();
    stats.holes_skipped = static_cast<std::int64_t>(skipped);
    return stats;
}

}  // namespace rdelta
