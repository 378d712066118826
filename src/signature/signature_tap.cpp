// signature_tap.cpp - a signature made from a file's bytes as they go by.
#include "signature_tap.hpp"

#include "block_records.hpp"
#include "checksum/strong_sum.hpp"
#include "core/parallel.hpp"
#include "format/signature_format.hpp"
#include "slice_size.hpp"

#include <algorithm>
#include <cstring>

namespace rdelta::detail {

namespace {

constexpr std::size_t records_flush = std::size_t{1} << 20;

}  // namespace

signature_tap::signature_tap(const sig_params& params, unsigned threads, byte_sink sink)
    : params_(params), threads_(threads ? threads : default_threads()), sink_(std::move(sink)) {
    stats_.op = "signature";
    stats_.block_len = params.block_len;
}

result<void> signature_tap::start() {
    if (started_) return {};
    started_ = true;
    auto checked = resolve_sig_params(
        {std::nullopt, params_.magic, params_.block_len, static_cast<std::int64_t>(params_.strong_len)});
    if (!checked) return std::move(checked).err();
    zero_record_ = zero_block_record(params_);
    const auto header = signature_header(params_);
    stats_.out_bytes += header.size();
    return sink_(header);
}

result<void> signature_tap::flush(std::size_t keep_below) {
    if (records_.size() < keep_below || records_.empty()) return {};
    if (auto sent = sink_(records_); !sent) return sent;
    stats_.out_bytes += static_cast<std::int64_t>(records_.size());
    records_.clear();
    return {};
}

result<void> signature_tap::add_blocks(const std::uint8_t* p, std::size_t len) {
    const std::size_t rec = params_.record_size(), bl = params_.block_len;
    const std::size_t count = blocks_in(params_, len);
    const std::size_t per_slice =
        blocks_per_slice(params_.block_len, strong_sum_lanes(params_.format().strong), threads_, parallel_grain);
    // In batches, so that the records waiting for the sink stay about records_flush.
    const std::size_t batch = std::max<std::size_t>(per_slice * threads_, records_flush / rec);
    for (std::size_t done = 0; done < count;) {
        const std::size_t n = std::min(batch, count - done);
        const std::size_t at = records_.size();
        records_.resize(at + n * rec);
        hash_block_records(params_, p + done * bl, std::min(n * bl, len - done * bl), per_slice, threads_, digests_,
                           records_.data() + at);
        done += n;
        stats_.sig_blocks += static_cast<std::int64_t>(n);
        if (auto f = flush(records_flush); !f) return f;
    }
    return {};
}

result<void> signature_tap::data(std::span<const std::uint8_t> bytes) {
    if (auto s = start(); !s) return s;
    const std::size_t bl = params_.block_len;
    stats_.in_bytes += static_cast<std::int64_t>(bytes.size());
    if (!partial_.empty()) {
        const std::size_t take = std::min(bl - partial_.size(), bytes.size());
        partial_.insert(partial_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(take));
        bytes = bytes.subspan(take);
        if (partial_.size() < bl) return {};
        if (auto a = add_blocks(partial_.data(), bl); !a) return a;
        partial_.clear();
    }
    const std::size_t full = bytes.size() / bl;
    if (full > 0)
        if (auto a = add_blocks(bytes.data(), full * bl); !a) return a;
    partial_.assign(bytes.begin() + static_cast<std::ptrdiff_t>(full * bl), bytes.end());
    return {};
}

result<void> signature_tap::zeros(std::uint64_t len) {
    if (auto s = start(); !s) return s;
    const std::size_t bl = params_.block_len;
    stats_.in_bytes += static_cast<std::int64_t>(len);
    if (!partial_.empty()) {
        const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(bl - partial_.size(), len));
        partial_.resize(partial_.size() + take, 0);
        len -= take;
        if (partial_.size() < bl) return {};
        if (auto a = add_blocks(partial_.data(), bl); !a) return a;
        partial_.clear();
    }
    const std::size_t rec = zero_record_.size();
    for (std::uint64_t blocks = len / bl; blocks > 0;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(blocks, records_flush / rec + 1));
        for (std::size_t i = 0; i < n; ++i) records_.insert(records_.end(), zero_record_.begin(), zero_record_.end());
        blocks -= n;
        stats_.sig_blocks += static_cast<std::int64_t>(n);
        if (auto f = flush(records_flush); !f) return f;
    }
    partial_.assign(static_cast<std::size_t>(len % bl), 0);
    return {};
}

result<job_stats> signature_tap::finish() {
    if (auto s = start(); !s) return std::move(s).err();
    if (!partial_.empty()) {
        if (auto a = add_blocks(partial_.data(), partial_.size()); !a) return std::move(a).err();
        partial_.clear();
    }
    if (auto f = flush(1); !f) return std::move(f).err();
    return stats_;
}

}  // namespace rdelta::detail
