// prune.cpp - dropping restore points a policy does not keep: the oldest with their
// increments, the others merged into the nearest older point kept.
#include "history_folder.hpp"
#include "increment_map.hpp"

#include "format/netint.hpp"

#include <rdelta/history.hpp>

#include <sys/random.h>
#include <algorithm>
#include <chrono>
#include <vector>

namespace rdelta {

namespace {

using detail::loaded_point;
using detail::piece;

std::uint64_t fresh_nonce() {
    std::uint64_t n = 0;
    if (::getrandom(&n, sizeof n, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof n))
        n = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    return n;
}

// Writes a point file front to back: records from offset 4096, then the footer
// and the (committed) header.
class point_writer {
public:
    point_writer(detail::point_file& out, detail::journal_header header) : out_(out), h_(header) {}

    result<void> record(std::uint32_t kind, std::uint64_t pos, std::uint64_t len, std::span<const std::uint8_t> data) {
        std::uint8_t head[detail::journal_record_head];
        detail::put_be(head, kind, 4);
        detail::put_be(head + 4, 0, 4);
        detail::put_be(head + 8, pos, 8);
        detail::put_be(head + 16, len, 8);
        detail::put_be(head + 24, count_, 8);
        detail::put_be(head + 32, detail::record_checksum(h_.nonce, head, data), 8);
        if (auto w = out_.write(end_, head); !w) return w;
        if (!data.empty())
            if (auto w = out_.write(end_ + sizeof head, data); !w) return w;
        end_ += sizeof head + data.size(), ++count_;
        return {};
    }

    result<void> finish(detail::point_footer footer) {
        h_.records_end = footer.records_end = end_;
        h_.record_count = footer.record_count = count_;
        std::uint8_t f[detail::point_footer_size];
        detail::encode_footer(footer, h_.nonce, f);
        if (auto w = out_.write(end_, f); !w) return w;
        std::uint8_t zeros[detail::journal_records_at] = {};
        if (auto w = out_.write(0, zeros); !w) return w;
        h_.seq = 1, h_.state = detail::journal_committed;
        std::uint8_t head[detail::journal_header_size];
        detail::encode_header(h_, head);
        return out_.write(detail::journal_slot_at[1], head);
    }

private:
    detail::point_file& out_;
    detail::journal_header h_;
    std::uint64_t end_ = detail::journal_records_at, count_ = 0;
};

// Increments newest..oldest (`group`, consecutive points) composed into one: the
// undo of all their patches at once. Where several cover a byte, the oldest wins.
result<void> write_merged(std::vector<loaded_point*>& group, detail::point_file& out) {
    const loaded_point& newest = *group.front();
    const loaded_point& oldest = *group.back();
    detail::increment_map map(newest.header.new_size);
    std::vector<detail::point_file*> files;
    for (std::size_t k = 0; k < group.size(); ++k) {
        auto refs = detail::validate(*group[k]->file, group[k]->header);
        if (!refs) return std::move(refs).err();
        map.resize(group[k]->header.old_size);
        for (auto it = refs->rbegin(); it != refs->rend(); ++it)
            map.put(it->pos, it->len, it->kind == detail::record_hole ? piece::zeros : static_cast<int>(k), it->at);
        files.push_back(group[k]->file.get());
    }
    detail::journal_header h = newest.header;
    h.nonce = fresh_nonce();
    h.old_size = oldest.header.old_size;
    h.new_size = newest.header.new_size;
    point_writer w(out, h);
    std::vector<std::uint8_t> buf;
    for (const piece& p : map.pieces()) {
        if (p.source == piece::image) continue;  // unchanged by all of them
        if (p.source == piece::zeros) {
            if (auto r = w.record(detail::record_hole, p.from, p.to - p.from, {}); !r) return r;
            continue;
        }
        for (std::uint64_t at = p.from; at < p.to;) {
            const auto n = static_cast<std::size_t>(std::min(p.to - at, detail::journal_max_record_data));
            buf.resize(n);
            auto& src = *files[static_cast<std::size_t>(p.source)];
            if (auto r = detail::read_exact(src, p.at + (at - p.from), buf, "a record"); !r) return r;
            if (auto r = w.record(detail::record_data, at, n, buf); !r) return r;
            at += n;
        }
    }
    detail::point_footer f = oldest.footer;  // the state it restores: the oldest's
    f.new_size = newest.footer.new_size;
    f.new_root = newest.footer.new_root;
    f.delta = newest.footer.delta;
    f.kept_s = newest.footer.kept_s;
    return w.finish(f);
}

}  // namespace

result<prune_report> prune_history(history& h, const prune_policy& policy, bool dry_run) {
    if (policy.empty())
        return fail(errc::param_error, h.name() + ": a prune needs at least one rule to keep points by");
    auto* folder = dynamic_cast<detail::history_folder*>(&h);
    if (!folder) return fail(errc::internal_error, "not a history opened by history::open()");
    auto all = folder->load_all();
    if (!all) return std::move(all).err();
    std::vector<std::int64_t> times;
    for (const auto& p : *all) times.push_back(p.info.time_s);
    const std::vector<bool> kept = points_kept(times, policy);
    prune_report report;
    for (std::size_t i = 0; i < all->size(); ++i) ((kept[i]) ? report.kept : report.dropped).push_back((*all)[i].info);
    if (dry_run) return report;
    std::uint64_t before = 0, after = 0;
    for (const auto& p : *all) before += p.info.stored_bytes;
    // Runs of dropped points with a kept point older than them merge into it.
    std::vector<std::size_t> unlink_now;
    for (std::size_t i = 0; i < all->size();) {
        if (kept[i]) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < all->size() && !kept[j]) ++j;
        if (j == all->size()) {  // no older point kept: these go, oldest first
            for (std::size_t k = all->size(); k-- > i;) unlink_now.push_back(k);
            break;
        }
        std::vector<loaded_point*> group;
        for (std::size_t k = i; k <= j; ++k) group.push_back(&(*all)[k]);
        auto merged = folder->replace_point((*all)[j].info.seq,
                                            [&](detail::point_file& out) { return write_merged(group, out); });
        if (!merged) return std::move(merged).err();
        ++report.merged;
        // Oldest first: a point restores through every newer one, so a crash
        // between two deletes must leave only points whose newer ones are all
        // there (the merged point alone stands for the whole group).
        for (std::size_t k = j; k-- > i;)
            if (auto r = folder->remove_point((*all)[k].info.seq); !r) return std::move(r).err();
        if (auto s = folder->sync(); !s) return std::move(s).err();
        i = j + 1;
    }
    for (const std::size_t k : unlink_now)
        if (auto r = folder->remove_point((*all)[k].info.seq); !r) return std::move(r).err();
    if (auto s = folder->sync(); !s) return std::move(s).err();
    auto left = folder->points();
    if (!left) return std::move(left).err();
    for (const auto& p : *left) after += p.stored_bytes;
    report.kept = *left;
    report.bytes_freed = before > after ? before - after : 0;
    return report;
}

}  // namespace rdelta
