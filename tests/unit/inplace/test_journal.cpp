// test_journal.cpp - the undo journal of in-place patching: a power cut after any
// number of operations recovers to exactly the old or the new file (bytes and
// holes), a failed verification rolls back, damaged journals change nothing.
#include "test_helpers.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/journal.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <optional>

using namespace rdelta;

namespace {

// Every mutating operation of the image and the journal spends one unit of a shared
// budget; when it is gone the "power" is cut: the operation and all later ones fail
// and change nothing.
struct power {
    std::uint64_t budget = UINT64_MAX;
    std::uint64_t used = 0;
    bool spend() {
        if (budget == 0) return false;
        --budget, ++used;
        return true;
    }
};

error cut() {
    return fail(errc::io_error, "power cut");
}

// A memory file that knows which 4 KiB pages are stored (the others are holes).
class paged_file final : public in_place_file {
public:
    paged_file(test::bytes content, power& p)
        : bytes_(std::move(content)), stored_(pages(bytes_.size()), true), p_(&p) {}
    void attach(power& p) { p_ = &p; }
    std::uint64_t size() const override { return bytes_.size(); }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos >= bytes_.size()) return std::size_t{0};
        const std::size_t n = std::min<std::size_t>(out.size(), bytes_.size() - pos);
        std::memcpy(out.data(), bytes_.data() + pos, n);
        return n;
    }
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> b) override {
        if (!p_->spend()) return cut();
        if (corrupt_next) b = corrupted(b);
        if (pos + b.size() > bytes_.size()) grow(pos + b.size());
        std::memcpy(bytes_.data() + pos, b.data(), b.size());
        for (std::uint64_t q = pos / page; q < pages(pos + b.size()); ++q) stored_[q] = true;
        return {};
    }
    result<void> resize(std::uint64_t size) override {
        if (!p_->spend()) return cut();
        grow(size);
        bytes_.resize(size);
        stored_.resize(pages(size));
        return {};
    }
    std::pair<bool, std::uint64_t> extent(std::uint64_t pos, std::uint64_t limit) override {
        const bool hole = !stored(pos / page);
        std::uint64_t end = pos;
        while (end < pos + limit && !stored(end / page) == hole) end = (end / page + 1) * page;
        return {hole, std::min(end, pos + limit) - pos};
    }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override {
        for (std::uint64_t q = pos / page; q < pages(pos + len); ++q)
            if (stored(q)) return false;
        return true;
    }
    result<void> punch_hole(std::uint64_t pos, std::uint64_t len) override {
        if (!p_->spend()) return cut();
        // Whole pages are freed, and so is a last page the range covers to the end.
        const std::uint64_t end = std::min<std::uint64_t>(pos + len, bytes_.size());
        const std::uint64_t last = end == bytes_.size() ? pages(end) : end / page;
        for (std::uint64_t q = pos / page; q < last && q < stored_.size(); ++q) {
            stored_[q] = false;
            std::fill_n(bytes_.begin() + static_cast<std::ptrdiff_t>(q * page),
                        std::min<std::uint64_t>(page, bytes_.size() - q * page), 0);
        }
        return {};
    }
    void make_hole(std::uint64_t from, std::uint64_t to) {
        for (std::uint64_t q = from / page; q < to / page; ++q) stored_[q] = false;
        std::fill(bytes_.begin() + static_cast<std::ptrdiff_t>(from), bytes_.begin() + static_cast<std::ptrdiff_t>(to),
                  0);
    }
    bool same(const paged_file& o) const { return bytes_ == o.bytes_ && stored_ == o.stored_; }
    // The note on the file itself (an attribute written and synced at once).
    result<void> mark_journaled(const std::string& journal, std::uint64_t nonce) override {
        marked = journal, note_nonce = nonce, ++marks;
        return {};
    }
    void clear_journal_mark() override { marked.reset(), note_nonce.reset(); }
    // With keeps_notes, the note binds the file to one journal, as on a file system
    // with user attributes; without, there is none to read (the name decides).
    journal_binding journal_binding_of(std::uint64_t nonce) override {
        if (!keeps_notes) return journal_binding::unknown;
        return note_nonce == nonce ? journal_binding::bound : journal_binding::stale;
    }
    std::optional<std::string> marked;  // "" without a journal
    std::optional<std::uint64_t> note_nonce;
    bool keeps_notes = false;
    int marks = 0;

    static constexpr std::uint64_t page = 4096;
    test::bytes bytes_;
    std::vector<bool> stored_;
    bool corrupt_next = false;

private:
    static std::uint64_t pages(std::uint64_t n) { return (n + page - 1) / page; }
    bool stored(std::uint64_t q) const { return q < stored_.size() && stored_[q]; }
    void grow(std::uint64_t size) {
        if (size > bytes_.size()) bytes_.resize(size, 0), stored_.resize(pages(size), false);
    }
    std::span<const std::uint8_t> corrupted(std::span<const std::uint8_t> b) {
        corrupt_next = false;
        scratch_.assign(b.begin(), b.end());
        scratch_[0] ^= 1;
        return scratch_;
    }
    test::bytes scratch_;
    power* p_;
};

// A journal whose writes since the last sync are lost in a power cut (the worst case
// for the ordering), while image writes reach the disk at once.
class volatile_journal final : public journal_storage {
public:
    explicit volatile_journal(power& p) : p_(p) {}
    bool exists() override { return present; }
    result<void> create() override {
        if (!p_.spend()) return cut();
        present = true, current.clear();
        return {};
    }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos >= current.size()) return std::size_t{0};
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), current.size() - pos));
        std::memcpy(out.data(), current.data() + pos, n);
        return n;
    }
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> b) override {
        if (!p_.spend()) return cut();
        if (pos + b.size() > current.size()) current.resize(pos + b.size());
        std::memcpy(current.data() + pos, b.data(), b.size());
        return {};
    }
    result<void> sync() override {
        if (!p_.spend()) return cut();
        durable = current;
        return {};
    }
    result<void> sync_folder() override { return {}; }
    result<void> remove() override {
        if (!p_.spend()) return cut();
        present = false, current.clear(), durable.clear();
        return {};
    }
    const std::string& name() const override { return name_; }
    void reboot() { current = durable; }

    test::bytes current, durable;
    bool present = false;

private:
    power& p_;
    std::string name_ = "journal";
};

test::bytes in_place_delta(const test::bytes& basis, const test::bytes& next, std::uint32_t block, bool checksum) {
    auto sig_bytes = make_signature(basis, {0x72730147, block, 32});
    REQUIRE(sig_bytes.ok());
    auto sig = load_signature(*sig_bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index(true).ok());
    auto d = make_delta(*sig, next, 0, delta_options{{1}, checksum, true});
    REQUIRE(d.ok());
    return *d;
}

delta_opener opener_of(const test::bytes& delta) {
    struct source final : byte_source {
        explicit source(const test::bytes& d) : d_(d) {}
        result<std::size_t> read_full(std::span<std::uint8_t> out) override {
            const std::size_t n = std::min(out.size(), d_.size() - at_);
            std::memcpy(out.data(), d_.data() + at_, n);
            at_ += n;
            return n;
        }
        std::optional<std::uint64_t> size() const noexcept override { return std::nullopt; }  // as a pipe
        const std::string& name() const noexcept override { return name_; }
        const test::bytes& d_;
        std::size_t at_ = 0;
        std::string name_ = "delta";
    };
    return [&delta]() -> result<std::unique_ptr<byte_source>> {
        return std::unique_ptr<byte_source>(std::make_unique<source>(delta));
    };
}

// A sparse basis: data, a 256 KiB hole, data; and three kinds of new file.
struct crash_case {
    const char* name;
    test::bytes basis, next;
};

std::vector<crash_case> crash_cases() {
    test::bytes basis = test::random_bytes(96 << 10, 7);
    basis.resize(basis.size() + (256 << 10), 0);
    const auto tail = test::random_bytes(80 << 10, 8);
    basis.insert(basis.end(), tail.begin(), tail.end());
    std::vector<crash_case> cases;
    auto grow = basis;
    std::fill(grow.begin() + 5000, grow.begin() + 9000, 7);
    const auto more = test::random_bytes(30000, 9);
    std::copy(more.begin(), more.end(), grow.begin() + (150 << 10));  // data into the hole
    grow.insert(grow.end(), more.begin(), more.end());
    cases.push_back({"overwrite, fill a hole, grow", basis, grow});
    auto shrink = basis;
    shrink.erase(shrink.begin() + 1000, shrink.begin() + 21000);  // later data moves back
    shrink.resize(shrink.size() - 50000);
    cases.push_back({"delete and shrink", basis, shrink});
    auto insert = basis;
    const auto ins = test::random_bytes(777, 10);
    insert.insert(insert.begin() + 3000, ins.begin(), ins.end());
    cases.push_back({"insert near the front", basis, insert});
    return cases;
}

}  // namespace

TEST_CASE("journal: a power cut after any operation recovers to exactly the old or the new file") {
    for (const auto& c : crash_cases()) {
        for (bool checksum : {true, false}) {
            CAPTURE(c.name);
            CAPTURE(checksum);
            const auto delta = in_place_delta(c.basis, c.next, 1024, checksum);
            power unlimited;
            paged_file old_file(c.basis, unlimited);
            old_file.make_hole(96 << 10, (96 << 10) + (256 << 10));
            // The reference new file: an uninterrupted run.
            paged_file new_file = old_file;
            {
                unlimited.used = 0;
                volatile_journal j(unlimited);
                in_place_options o;
                o.allow_unrecorded = true;  // a memory file keeps no record
                o.journal = &j;
                o.batch_bytes = 16 << 10;  // many batches
                auto done = patch_in_place(opener_of(delta), new_file, o);
                REQUIRE(done.ok());
                CHECK(new_file.bytes_ == c.next);
                CHECK_FALSE(j.present);
                CHECK(new_file.marks == 1);
                CHECK_FALSE(new_file.marked);
                new_file.marks = 0;
            }
            const std::uint64_t total = unlimited.used;
            int old_seen = 0, new_seen = 0;
            for (std::uint64_t k = 0; k <= total; ++k) {
                CAPTURE(k);
                power p;
                paged_file file = old_file;
                file.attach(p);
                volatile_journal j(p);
                in_place_options o;
                o.allow_unrecorded = true;  // a memory file keeps no record
                o.journal = &j;
                o.batch_bytes = 16 << 10;
                p.budget = k;
                (void)patch_in_place(opener_of(delta), file, o);
                p.budget = UINT64_MAX;  // power is back
                // Part old, part new: the file itself says so (any name reaches it).
                if (!file.same(old_file) && !file.same(new_file)) CHECK(file.marked == j.name());
                j.reboot();
                auto r = recover_in_place(file, j);
                REQUIRE(r.ok());
                CHECK_FALSE(j.present);
                CHECK_FALSE(file.marked);
                const bool is_old = file.same(old_file), is_new = file.same(new_file);
                CHECK((is_old || is_new));
                if (!is_old && !is_new) {
                    std::size_t diff_old = 0, diff_new = 0;
                    for (std::size_t i = 0; i < std::min(file.bytes_.size(), old_file.bytes_.size()); ++i)
                        diff_old += file.bytes_[i] != old_file.bytes_[i];
                    MESSAGE("total " << total << " size " << file.bytes_.size() << " old " << old_file.bytes_.size()
                                     << " new " << new_file.bytes_.size() << " bytes differing from old " << diff_old
                                     << " stored==old " << (file.stored_ == old_file.stored_) << " res " << r->action);
                    (void)diff_new;
                    std::size_t first = SIZE_MAX, last = 0;
                    for (std::size_t i = 0; i < std::min(file.bytes_.size(), old_file.bytes_.size()); ++i)
                        if (file.bytes_[i] != old_file.bytes_[i]) first = std::min(first, i), last = i;
                    MESSAGE("differ from " << first << " to " << last);
                }
                old_seen += is_old, new_seen += is_new && !is_old;
            }
            CHECK(old_seen > 0);
            CHECK(new_seen > 0);
        }
    }
}

TEST_CASE("no journal: an image a power cut leaves torn says so on itself; a whole one does not") {
    const auto cases = crash_cases();
    const auto& c = cases.front();
    const auto delta = in_place_delta(c.basis, c.next, 1024, false);
    power unlimited;
    paged_file old_file(c.basis, unlimited);
    paged_file new_file = old_file;
    in_place_options o;
    o.allow_unrecorded = true;  // a memory file keeps no record
    o.batch_bytes = 16 << 10;
    REQUIRE(patch_in_place(opener_of(delta), new_file, o).ok());
    CHECK(new_file.marks == 1);
    CHECK_FALSE(new_file.marked);
    const std::uint64_t total = unlimited.used;
    int torn = 0;
    for (std::uint64_t k = 0; k < total; ++k) {
        CAPTURE(k);
        power p;
        paged_file file = old_file;
        file.attach(p);
        p.budget = k;
        CHECK_FALSE(patch_in_place(opener_of(delta), file, o).ok());
        if (!file.same(old_file) && !file.same(new_file)) {
            ++torn;
            CHECK(file.marked == std::string());
        }
    }
    CHECK(torn > 0);
}

TEST_CASE("journal: a mismatch found when the written file is verified rolls it back") {
    const auto c = crash_cases()[0];
    const auto delta = in_place_delta(c.basis, c.next, 1024, true);
    power p;
    paged_file file(c.basis, p);
    file.make_hole(96 << 10, (96 << 10) + (256 << 10));
    const paged_file before = file;
    memory_journal j;
    in_place_options o;
    o.allow_unrecorded = true;  // a memory file keeps no record
    o.journal = &j;
    file.corrupt_next = true;  // the first write reaching the file is damaged
    auto done = patch_in_place(opener_of(delta), file, o);
    REQUIRE_FALSE(done.ok());
    CHECK(done.err().code == errc::corrupt);
    CHECK(done.err().message.find("rolled back") != std::string::npos);
    CHECK(file.same(before));
    CHECK_FALSE(j.present);
}

TEST_CASE("journal: damaged journals change nothing; one never made valid is dropped") {
    const auto c = crash_cases()[0];
    const auto delta = in_place_delta(c.basis, c.next, 1024, true);
    // A hot journal: power cut in the middle of the writes.
    power p;
    paged_file file(c.basis, p);
    volatile_journal j(p);
    in_place_options o;
    o.allow_unrecorded = true;  // a memory file keeps no record
    o.journal = &j;
    o.batch_bytes = 16 << 10;
    {  // count the operations of a whole run, then cut the power half-way
        power count;
        paged_file copy = file;
        copy.attach(count);
        volatile_journal cj(count);
        in_place_options co = o;
        co.journal = &cj;
        REQUIRE(patch_in_place(opener_of(delta), copy, co).ok());
        p.budget = count.used / 2;
    }
    (void)patch_in_place(opener_of(delta), file, o);
    p.budget = UINT64_MAX;
    j.reboot();
    REQUIRE(j.present);
    REQUIRE(j.current.size() > 4096 + 100);
    const paged_file mid = file;
    const auto hot = j.current;

    SUBCASE("a flipped byte in a record") {
        j.current[4096 + 45] ^= 0x10;
        auto r = recover_in_place(file, j);
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().code == errc::corrupt);
        CHECK(file.same(mid));
        CHECK(j.present);
    }
    SUBCASE("records cut short") {
        j.current.resize(4096 + 60);
        auto r = recover_in_place(file, j);
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().code == errc::corrupt);
        CHECK(file.same(mid));
    }
    SUBCASE("no valid header") {
        std::fill_n(j.current.begin(), 1024, 0);
        auto r = recover_in_place(file, j);
        REQUIRE(r.ok());
        CHECK(r->action == recovery_action::discarded);
        CHECK(file.same(mid));
        CHECK_FALSE(j.present);
    }
    SUBCASE("intact: rolled back") {
        auto r = recover_in_place(file, j);
        REQUIRE(r.ok());
        CHECK(r->action == recovery_action::rolled_back);
        CHECK(file.bytes_ == c.basis);
    }
    SUBCASE("a damaged header (both slots written, neither valid) is refused, not discarded") {
        j.current[60] ^= 0x01;
        j.current[512 + 60] ^= 0x01;
        auto r = recover_in_place(file, j);
        REQUIRE_FALSE(r.ok());
        CHECK(r.err().code == errc::corrupt);
        CHECK(r.err().message.find("header is damaged") != std::string::npos);
        CHECK(file.same(mid));
        CHECK(j.present);
        CHECK(j.current.size() == hot.size());
    }
    SUBCASE("the note carries the journal's nonce: rolled back") {
        file.keeps_notes = true;
        auto r = recover_in_place(file, j);
        REQUIRE(r.ok());
        CHECK(r->action == recovery_action::rolled_back);
        CHECK(file.bytes_ == c.basis);
    }
    SUBCASE("no note, or another update's: the journal is stale, deleted and never replayed") {
        file.keeps_notes = true;
        for (const bool other : {false, true}) {
            j.current = hot, j.present = true;
            if (other)
                file.note_nonce = 12345;
            else
                file.note_nonce.reset();
            auto r = recover_in_place(file, j);
            REQUIRE(r.ok());
            CHECK(r->action == recovery_action::stale);
            CHECK(file.same(mid));
            CHECK_FALSE(j.present);
        }
    }
}

TEST_CASE("journal: many short commands are saved and written as a few long regions, and still recover") {
    // Basis: data, a 32 KiB hole, data. Delta: 20 LITERALs of 3 bytes, 20000 COPYs of
    // 2 bytes that continue one another from 100000 bytes on (across the hole), 2000
    // COPYs of 1 byte to the same offset; the file shrinks.
    test::bytes basis = test::random_bytes(96 << 10, 21);
    basis.resize(basis.size() + (32 << 10), 0);
    const auto tail = test::random_bytes(32 << 10, 22);
    basis.insert(basis.end(), tail.begin(), tail.end());
    test::bytes delta = test::from_hex("72730236");
    std::uint32_t out = 0;
    auto copy = [&](std::uint32_t pos, std::uint8_t len) {
        delta.push_back(0x4d);
        for (int k = 3; k >= 0; --k) delta.push_back(static_cast<std::uint8_t>(pos >> (8 * k)));
        delta.push_back(len);
        out += len;
    };
    for (int i = 0; i < 20; ++i) {
        delta.insert(delta.end(), {0x03, static_cast<std::uint8_t>(i), 1, 2});
        out += 3;
    }
    for (int i = 0; i < 20000; ++i) copy(out + 100000, 2);
    for (int i = 0; i < 2000; ++i) copy(out, 1);
    delta.push_back(0x00);
    auto expected = apply_patch(basis, delta);
    REQUIRE(expected.ok());

    power unlimited;
    paged_file old_file(basis, unlimited);
    old_file.make_hole(96 << 10, 128 << 10);
    paged_file new_file = old_file;
    {
        volatile_journal j(unlimited);
        in_place_options o;
        o.allow_unrecorded = true;  // a memory file keeps no record
        o.journal = &j;
        o.batch_bytes = 16 << 10;
        auto done = patch_in_place(opener_of(delta), new_file, o);
        REQUIRE(done.ok());
        CHECK(new_file.bytes_ == *expected);
        CHECK(done->job.copy_cmds == 22000);
        CHECK(done->job.copy_bytes == 42000);
        CHECK(done->job.lit_cmds == 20);
        CHECK(done->job.lit_bytes == 60);
        // One record per region, not per command (40 bytes of record head each).
        REQUIRE(done->journal_bytes_written < 4096 + 2 * 40060);  // else the loop below takes minutes
    }
    const std::uint64_t total = unlimited.used;
    for (std::uint64_t k = 0; k <= total; ++k) {
        CAPTURE(k);
        power p;
        paged_file file = old_file;
        file.attach(p);
        volatile_journal j(p);
        in_place_options o;
        o.allow_unrecorded = true;  // a memory file keeps no record
        o.journal = &j;
        o.batch_bytes = 16 << 10;
        p.budget = k;
        (void)patch_in_place(opener_of(delta), file, o);
        p.budget = UINT64_MAX;
        j.reboot();
        REQUIRE(recover_in_place(file, j).ok());
        CHECK((file.same(old_file) || file.same(new_file)));
    }
}

TEST_CASE("journal: a hole that runs to an unaligned end is saved up to that end, and rolls back") {
    // The old file ends inside a 4 KiB block, in a hole: its hole record stops at the
    // old end (one past it would be taken for damage, and the rollback refused).
    test::bytes basis = test::random_bytes(100000 + 123, 91);
    test::bytes next = basis;
    std::fill(next.begin() + 60000, next.end(), 7);  // writes over the hole to the end
    const auto delta = in_place_delta(basis, next, 1024, true);
    power p;
    paged_file file(basis, p);
    for (std::size_t q = (64 << 10) / paged_file::page; q < file.stored_.size(); ++q) file.stored_[q] = false;
    std::fill(file.bytes_.begin() + (64 << 10), file.bytes_.end(), 0);
    const paged_file before = file;
    memory_journal j;
    in_place_options o;
    o.allow_unrecorded = true;
    o.journal = &j;
    file.corrupt_next = true;  // fails the check after writing: the journal rolls it back
    auto done = patch_in_place(opener_of(delta), file, o);
    REQUIRE_FALSE(done.ok());
    CHECK(done.err().message.find("rolled back") != std::string::npos);
    CHECK(file.same(before));
}
