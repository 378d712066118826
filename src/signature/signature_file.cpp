// signature_file.cpp - signatures of random-access inputs: each thread reads its
// own slice of whole blocks and hashes it while the data is still in its cache,
// then the records are written in file order.
#include "checksum/blake2b_many.hpp"
#include "checksum/strong_sum.hpp"
#include "checksum/weak_sum.hpp"
#include "core/aligned_buffer.hpp"
#include "core/exception_guard.hpp"
#include "core/parallel.hpp"
#include "format/signature_format.hpp"
#include "slice_size.hpp"

#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace rdelta {

namespace {

constexpr std::size_t slice_target = std::size_t{1} << 20;  // fits in a core's L2

struct slice_worker {
    detail::aligned_bytes data;  // read into: aligned_buffer.hpp says why
    std::unique_ptr<std::uint8_t[]> digests;
    std::size_t capacity = 0, digest_capacity = 0;
};

// One slice_worker per thread: a slice is read into a buffer that the previous
// slice left in the core's cache (a buffer per slice of a round measured 8%
// slower for 1 GiB with 2 threads).
class slice_worker_pool {
public:
    explicit slice_worker_pool(unsigned threads) : workers_(threads) {
        for (auto& w : workers_) idle_.push_back(&w);
    }

    class lease {
    public:
        explicit lease(slice_worker_pool& pool) : pool_(pool) {
            std::lock_guard lock(pool_.mutex_);
            worker_ = pool_.idle_.back();
            pool_.idle_.pop_back();
        }
        ~lease() {
            std::lock_guard lock(pool_.mutex_);
            pool_.idle_.push_back(worker_);
        }
        lease(const lease&) = delete;
        lease& operator=(const lease&) = delete;
        slice_worker& get() const { return *worker_; }

    private:
        slice_worker_pool& pool_;
        slice_worker* worker_;
    };

private:
    std::vector<slice_worker> workers_;
    std::vector<slice_worker*> idle_;  // never empty while a thread asks: one worker per thread
    std::mutex mutex_;
};

// basis[offset, offset + out.size()) into out.
result<void> read_exact(basis_reader& basis, std::uint64_t offset, std::span<std::uint8_t> out) {
    for (std::size_t got = 0; got < out.size();) {
        auto n = basis.read(offset + got, out.subspan(got));
        if (!n) return std::move(n).err();
        if (*n == 0) return fail(errc::input_ended, "the basis became shorter while it was read");
        got += *n;
    }
    return {};
}

void reserve(slice_worker& w, std::size_t len) {
    if (w.capacity < len) w.data = detail::make_aligned_bytes(len), w.capacity = len;
}

bool all_zeros(const std::uint8_t* p, std::size_t len) {
    return len > 0 && p[0] == 0 && std::memcmp(p, p + 1, len - 1) == 0;
}

// Sixteen blocks much larger than a core's cache (1 MiB blocks are the default
// for a 1 TiB basis): read whole, they are hashed from memory rather than from
// the cache the read left them in (bench/README.md, "Measurements behind design
// choices"). Here the 16 blocks are read and hashed a piece of
// each at a time, the pieces together the size of a core's L2. Returns false,
// having written nothing, when the slice is not such a slice or its first
// pieces are all zeros (hash_slice then skips hashing if the whole slice is).
constexpr std::size_t piece_len = std::size_t{64} << 10;

result<bool> hash_in_pieces(basis_reader& basis, std::uint64_t offset, std::size_t len, const sig_params& params,
                            slice_worker& w, std::uint8_t* records) {
    constexpr std::size_t lanes = detail::blake2b256_parts::lanes;
    const sig_format format = params.format();
    const std::size_t bl = params.block_len;
    if (format.strong != strong_kind::blake2 || detail::strong_sum_lanes(format.strong) != lanes || bl <= piece_len ||
        len != lanes * bl)
        return false;
    reserve(w, lanes * piece_len);
    if (w.digest_capacity < lanes * detail::digest_stride) {
        w.digests = std::make_unique_for_overwrite<std::uint8_t[]>(lanes * detail::digest_stride);
        w.digest_capacity = lanes * detail::digest_stride;
    }
    detail::blake2b256_parts strong;
    std::vector<detail::weak_sum_parts> weak(lanes, detail::weak_sum_parts(format.weak));
    const std::uint8_t* pieces[lanes];
    for (std::size_t done = 0; done < bl;) {
        const std::size_t n = std::min(piece_len, bl - done);
        for (std::size_t i = 0; i < lanes; ++i) {
            auto read = read_exact(basis, offset + i * bl + done, {w.data.get() + i * piece_len, n});
            if (!read) return std::move(read).err();
            pieces[i] = w.data.get() + i * piece_len;
        }
        if (done == 0 && all_zeros(w.data.get(), lanes * piece_len)) return false;
        for (std::size_t i = 0; i < lanes; ++i) weak[i].update(pieces[i], n);
        done += n;
        if (done < bl) {
            strong.update(pieces, n);
        } else {
            strong.finish(pieces, n, w.digests.get(), detail::digest_stride);
        }
    }
    const std::size_t rec = params.record_size();
    for (std::size_t i = 0; i < lanes; ++i)
        detail::put_signature_record(records + i * rec, weak[i].digest(), w.digests.get() + i * detail::digest_stride,
                                     params.strong_len);
    return true;
}

// Records of the blocks of basis[offset, offset + len) into `records`.
result<void> hash_slice(basis_reader& basis, std::uint64_t offset, std::size_t len, const sig_params& params,
                        slice_worker& w, std::uint8_t* records, const std::vector<std::uint8_t>& zero_record,
                        std::atomic<std::uint64_t>& holes) {
    const std::size_t rec = params.record_size();
    if (len % params.block_len == 0 && basis.is_hole(offset, len)) {
        // A hole reads as zeros: no need to read or hash it.
        for (std::size_t i = 0; i < len / params.block_len; ++i)
            std::memcpy(records + i * rec, zero_record.data(), rec);
        holes += len;
        return {};
    }
    if (auto pieces = hash_in_pieces(basis, offset, len, params, w, records); !pieces || *pieces)
        return pieces ? result<void>{} : std::move(pieces).err();
    reserve(w, len);
    if (auto read = read_exact(basis, offset, {w.data.get(), len}); !read) return read;
    if (len % params.block_len == 0 && all_zeros(w.data.get(), len)) {
        // Written zeros (a dense image's free space): no hashing either.
        for (std::size_t i = 0; i < len / params.block_len; ++i)
            std::memcpy(records + i * rec, zero_record.data(), rec);
        return {};
    }
    const std::size_t blocks = (len + params.block_len - 1) / params.block_len;
    if (w.digest_capacity < blocks * detail::digest_stride) {
        w.digests = std::make_unique_for_overwrite<std::uint8_t[]>(blocks * detail::digest_stride);
        w.digest_capacity = blocks * detail::digest_stride;
    }
    detail::hash_signature_records(params, w.data.get(), len, w.digests.get(), records);
    return {};
}

}  // namespace

namespace detail {
result<job_stats> signature_from(basis_reader& basis, std::uint64_t size, const sig_params& params, job_options options,
                                 const byte_sink& sink);
}  // namespace detail

result<job_stats> make_signature_from(basis_reader& basis, std::uint64_t size, const sig_params& params,
                                      job_options options, const byte_sink& sink) {
    return detail::exceptions_as_errors("signature",
                                        [&] { return detail::signature_from(basis, size, params, options, sink); });
}

// make_signature_from()'s body; allocation and thread failures throw.
result<job_stats> detail::signature_from(basis_reader& basis, std::uint64_t size, const sig_params& params,
                                         job_options options, const byte_sink& sink) {
    auto checked = resolve_sig_params(
        {std::nullopt, params.magic, params.block_len, static_cast<std::int64_t>(params.strong_len)});
    if (!checked) return std::move(checked).err();
    const unsigned threads = options.threads ? options.threads : detail::default_threads();
    const std::size_t bl = params.block_len;
    const std::size_t rec = params.record_size();
    const std::size_t slice_blocks =
        detail::blocks_per_slice(bl, detail::strong_sum_lanes(params.format().strong), threads, slice_target);
    const std::uint64_t slice_bytes = std::uint64_t{slice_blocks} * bl;
    const std::size_t round_slices = std::size_t{threads} * 32;  // a wait for the slowest thread per round

    job_stats stats;
    stats.op = "signature";
    stats.block_len = bl;
    const auto header = detail::signature_header(params);
    if (auto sent = sink(header); !sent) return std::move(sent).err();

    slice_worker_pool buffers(threads);
    std::atomic<std::uint64_t> holes{0};
    const std::vector<std::uint8_t> zero_record = detail::zero_block_record(params);
    std::vector<std::uint8_t> records;
    std::vector<std::optional<error>> errors(round_slices);
    for (std::uint64_t offset = 0; offset < size;) {
        const std::uint64_t round_end = std::min<std::uint64_t>(size, offset + slice_bytes * round_slices);
        const std::size_t slices = static_cast<std::size_t>((round_end - offset + slice_bytes - 1) / slice_bytes);
        const std::uint64_t round_blocks = (round_end - offset + bl - 1) / bl;
        records.resize(static_cast<std::size_t>(round_blocks) * rec);
        detail::parallel_for(slices, threads, [&](std::size_t s) {
            const std::uint64_t from = offset + s * slice_bytes;
            const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(slice_bytes, round_end - from));
            const slice_worker_pool::lease w(buffers);
            auto done = hash_slice(basis, from, len, params, w.get(), records.data() + s * slice_blocks * rec,
                                   zero_record, holes);
            if (!done) errors[s] = std::move(done).err();
        });
        for (auto& e : errors)
            if (e) return *e;
        if (auto sent = sink(records); !sent) return std::move(sent).err();
        stats.sig_blocks += static_cast<std::int64_t>(round_blocks);
        stats.in_bytes += static_cast<std::int64_t>(round_end - offset);
        stats.out_bytes += static_cast<std::int64_t>(records.size());
        offset = round_end;
    }
    stats.out_bytes += static_cast<std::int64_t>(header.size());
    stats.holes_skipped = static_cast<std::int64_t>(holes.load());
    return stats;
}

}  // namespace rdelta
