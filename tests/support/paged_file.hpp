// paged_file.hpp - the in_place_file the unit tests and the fuzz target patch: a
// file in memory made of 4 KiB pages, each stored or a hole, kept twice: what reads
// see (the page cache) and what has reached stable storage (the last sync). A power
// cut then plays what a disk may do with the pages written since: lose them, keep
// them, or keep some (a torn write). Its change time moves with every change, as
// a file system's ctime (the manifest is believed only while it stands still), and
// it counts what the tests assert on.
#pragma once

#include <rdelta/error.hpp>
#include <rdelta/in_place.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rdelta::test {

// Every mutating operation of a file and of its journal spends one unit of a shared
// budget; when it is gone the power is out: that operation and all later ones fail
// and change nothing, until the test restores the budget and plays the cut.
struct power {
    std::uint64_t budget = UINT64_MAX;
    std::uint64_t used = 0;
    bool spend() {
        if (budget == 0) return false;
        --budget, ++used;
        return true;
    }
};

inline error power_out() {
    return fail(errc::io_error, "power cut");
}

// What a power cut does with what was written since the last sync.
enum class unsynced {
    lost,  // the disk holds the last sync's state
    kept,  // everything reached the disk (the luckiest cut; no sync is tested)
    torn,  // a pseudo-random choice of pages, and of the size, reached it
};

class paged_file final : public in_place_file {
public:
    static constexpr std::uint64_t page = 4096;
    using bytes = std::vector<std::uint8_t>;

    // What the tests assert on; `= {}` starts counting again.
    struct counts {
        std::uint64_t bytes_read = 0, bytes_written = 0;
        std::uint64_t hole_pages_read = 0;  // pages read that are holes (a hole should be skipped)
        std::uint64_t furthest_write = 0;   // the end of the write that reached furthest
        std::uint64_t syncs = 0;
    };

    // `content` all stored and synced.
    explicit paged_file(std::span<const std::uint8_t> content) : cache_{{content.begin(), content.end()}, {}} {
        cache_.stored.assign(pages(cache_.data.size()), true);
        disk_ = cache_;
        dirty_.assign(cache_.stored.size(), false);
    }

    // Spend `p` for every change from now on (none is spent without).
    void attach(power& p) { power_ = &p; }

    std::uint64_t size() const override { return cache_.data.size(); }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos >= size()) return std::size_t{0};
        const std::size_t n = std::min<std::size_t>(out.size(), size() - pos);
        for (std::uint64_t q = pos / page; q < pages(pos + n); ++q) count.hole_pages_read += !stored(q);
        std::memcpy(out.data(), cache_.data.data() + pos, n);
        count.bytes_read += n;
        return n;
    }
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> b) override {
        if (!allowed_change()) return power_out();
        if (damage_next_write && !b.empty()) b = damaged(b);
        if (pos + b.size() > size()) grow(pos + b.size());
        std::memcpy(cache_.data.data() + pos, b.data(), b.size());
        for (std::uint64_t q = pos / page; q < pages(pos + b.size()); ++q) cache_.stored[q] = true, dirty_[q] = true;
        count.bytes_written += b.size();
        count.furthest_write = std::max(count.furthest_write, pos + b.size());
        return {};
    }
    result<void> resize(std::uint64_t size) override {
        if (!allowed_change()) return power_out();
        const std::uint64_t old = this->size();
        grow(size);
        cache_.data.resize(size);
        cache_.stored.resize(pages(size));
        for (std::uint64_t q = std::min(old, size) / page; q < pages(old); ++q) dirty_[q] = true;  // cut off
        return {};
    }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override {
        for (std::uint64_t q = pos / page; q < pages(pos + len); ++q)
            if (stored(q)) return false;
        return true;
    }
    std::pair<bool, std::uint64_t> extent(std::uint64_t pos, std::uint64_t limit) override {
        const bool hole = !stored(pos / page);
        std::uint64_t end = pos;
        while (end < pos + limit && !stored(end / page) == hole) end = (end / page + 1) * page;
        return {hole, std::min(end, pos + limit) - pos};
    }
    result<void> punch_hole(std::uint64_t pos, std::uint64_t len) override {
        if (!allowed_change()) return power_out();
        punch(pos, len);
        return {};
    }
    result<void> sync() override {
        if (power_ && !power_->spend()) return power_out();
        ++count.syncs;
        settle();
        return {};
    }
    std::pair<std::uint64_t, std::uint64_t> identity() const override { return {1, 2}; }
    std::pair<std::int64_t, std::int64_t> change_time() override { return {1, changes}; }

    // The note on the file itself: an attribute, written and synced at once; like
    // any attribute change it moves the change time. Without power it stays as it is.
    result<void> mark_journaled(const std::string& journal, std::uint64_t nonce) override {
        if (power_ && !power_->spend()) return power_out();
        marked = journal, note_nonce = nonce, ++marks, ++changes;
        return {};
    }
    void clear_journal_mark() override {  // (spends nothing: it cannot report a failure)
        if (!marked || (power_ && power_->budget == 0)) return;
        ++changes;
        marked.reset(), note_nonce.reset();
    }
    // With keeps_notes the note binds the file to one journal, as on a file system
    // with user attributes; without, there is none to read (the journal's name decides).
    journal_binding journal_binding_of(std::uint64_t nonce) override {
        if (!keeps_notes) return journal_binding::unknown;
        return note_nonce == nonce ? journal_binding::bound : journal_binding::stale;
    }

    // [from, to) made a hole, durably, before a test starts: whole pages, and a last
    // page the range covers to the end.
    void make_hole(std::uint64_t from, std::uint64_t to) {
        punch(from, to - from);
        settle();
    }
    // A bit of the byte at `pos` flips on the disk, behind the file system's back:
    // the change time stands still.
    void rot(std::uint64_t pos) {
        cache_.data[pos] ^= 1;
        if (pos < disk_.data.size()) disk_.data[pos] ^= 1;
    }
    // The power is back: what reads see is what the disk kept (`seed` picks the torn pages).
    void power_cut(unsynced what, std::uint64_t seed = 0) {
        if (what == unsynced::kept) settle();
        if (what == unsynced::torn) tear(seed);
        cache_ = disk_;
        dirty_.assign(cache_.stored.size(), false);
    }

    const bytes& data() const { return cache_.data; }
    const std::vector<bool>& stored_pages() const { return cache_.stored; }
    bool same(const paged_file& o) const { return cache_ == o.cache_; }
    bool stored(std::uint64_t q) const { return q < cache_.stored.size() && cache_.stored[q]; }

    counts count;
    std::int64_t changes = 1;           // the change time: every write, resize or punched hole moves it
    bool damage_next_write = false;     // flips a bit of the next write (a verification must catch it)
    std::optional<std::string> marked;  // the note: the journal's name, "" without one
    std::optional<std::uint64_t> note_nonce;
    bool keeps_notes = false;
    int marks = 0;

private:
    struct image {
        bytes data;
        std::vector<bool> stored;
        bool operator==(const image&) const = default;
    };
    static std::uint64_t pages(std::uint64_t n) { return (n + page - 1) / page; }
    bool allowed_change() {
        if (power_ && !power_->spend()) return false;
        ++changes;  // a change the power allowed
        return true;
    }
    void grow(std::uint64_t size) {
        if (size <= cache_.data.size()) return;
        cache_.data.resize(size, 0), cache_.stored.resize(pages(size), false);
        dirty_.resize(std::max(dirty_.size(), cache_.stored.size()), false);
    }
    void punch(std::uint64_t pos, std::uint64_t len) {
        if (pos >= size()) return;
        const std::uint64_t end = std::min<std::uint64_t>(pos + len, size());
        const std::uint64_t last = end == size() ? pages(end) : end / page;
        for (std::uint64_t q = pos / page; q < last; ++q) {
            cache_.stored[q] = false, dirty_[q] = true;
            std::fill_n(cache_.data.begin() + static_cast<std::ptrdiff_t>(q * page),
                        std::min<std::uint64_t>(page, size() - q * page), 0);
        }
    }
    // The dirty pages, and the size, reach the disk.
    void settle() {
        settle_if([](std::uint64_t) { return true; }, true);
    }
    void tear(std::uint64_t seed) {
        std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
        auto coin = [&x](std::uint64_t) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            return (x >> 32) & 1;
        };
        const bool size_kept = coin(0);
        settle_if(coin, size_kept);
    }
    template <class Keep>
    void settle_if(Keep keep, bool size_kept) {
        if (size_kept) {
            disk_.data.resize(cache_.data.size(), 0);
            disk_.stored.resize(cache_.stored.size(), false);
        }
        for (std::uint64_t q = 0; q < dirty_.size(); ++q) {
            if (!dirty_[q] || !keep(q)) continue;
            dirty_[q] = false;
            if (q >= disk_.stored.size() || q >= cache_.stored.size()) continue;  // past either end
            const std::uint64_t from = q * page;
            const std::uint64_t n = std::min({page, disk_.data.size() - from, size() - from});
            std::copy_n(cache_.data.begin() + static_cast<std::ptrdiff_t>(from), n,
                        disk_.data.begin() + static_cast<std::ptrdiff_t>(from));
            disk_.stored[q] = stored(q);
        }
    }
    std::span<const std::uint8_t> damaged(std::span<const std::uint8_t> b) {
        damage_next_write = false;
        scratch_.assign(b.begin(), b.end());
        scratch_[0] ^= 1;
        return scratch_;
    }

    image cache_, disk_;
    std::vector<bool> dirty_;  // pages changed since the last sync
    power* power_ = nullptr;
    bytes scratch_;
};

}  // namespace rdelta::test
