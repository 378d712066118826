// test_journal.cpp - the undo journal of in-place patching: a power cut after any
// number of operations recovers to exactly the old or the new file (bytes and
// holes), a failed verification rolls back, damaged journals change nothing.
#include "in_place_delta.hpp"
#include "paged_file.hpp"
#include "test_helpers.hpp"
#include "volatile_journal.hpp"

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
using test::paged_file;
using test::power;
using test::unsynced;
using test::volatile_journal;

namespace {

// Opens `delta` as a source of no known size, as a pipe is.
delta_opener pipe_opener_of(const test::bytes& delta) {
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

// The cut points meet the three fates of unsynced writes in turn.
unsynced fate(std::uint64_t k) {
    return static_cast<unsynced>(k % 3);
}

// Patches `file` with a journal, the first write damaged so that the check after
// writing fails: the patch must report that the journal rolled the file back.
void patch_rolled_back(paged_file& file, const test::bytes& delta) {
    memory_journal j;
    in_place_options o;
    o.allow_unrecorded = true;
    o.journal = &j;
    file.damage_next_write = true;
    auto done = patch_in_place(pipe_opener_of(delta), file, o);
    REQUIRE_FALSE(done.ok());
    CHECK(done.err().message.find("rolled back") != std::string::npos);
}

}  // namespace

TEST_CASE("journal: a power cut after any operation recovers to exactly the old or the new file") {
    for (const auto& c : crash_cases()) {
        for (bool checksum : {true, false}) {
            CAPTURE(c.name);
            CAPTURE(checksum);
            const auto delta = test::in_place_delta(c.basis, c.next, 1024, checksum);
            power unlimited;
            paged_file old_file(c.basis);
            old_file.attach(unlimited);
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
                auto done = patch_in_place(pipe_opener_of(delta), new_file, o);
                REQUIRE(done.ok());
                CHECK(new_file.data() == c.next);
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
                const bool finished = patch_in_place(pipe_opener_of(delta), file, o).ok();
                p.budget = UINT64_MAX;  // power is back
                file.power_cut(fate(k), k);
                // Part old, part new: the file itself says so (any name reaches it).
                if (!file.same(old_file) && !file.same(new_file)) CHECK(file.marked == j.name());
                j.reboot();
                auto r = recover_in_place(file, j);
                REQUIRE(r.ok());
                CHECK_FALSE(j.present);
                CHECK_FALSE(file.marked);
                const bool is_old = file.same(old_file), is_new = file.same(new_file);
                CHECK((is_old || is_new));
                if (finished) CHECK(is_new);  // a patch that said it was done is on the disk
                if (!is_old && !is_new) {
                    std::size_t diff_old = 0, diff_new = 0;
                    for (std::size_t i = 0; i < std::min(file.data().size(), old_file.data().size()); ++i)
                        diff_old += file.data()[i] != old_file.data()[i];
                    MESSAGE("total " << total << " size " << file.data().size() << " old " << old_file.data().size()
                                     << " new " << new_file.data().size() << " bytes differing from old " << diff_old
                                     << " stored==old " << (file.stored_pages() == old_file.stored_pages()) << " res "
                                     << r->action);
                    (void)diff_new;
                    std::size_t first = SIZE_MAX, last = 0;
                    for (std::size_t i = 0; i < std::min(file.data().size(), old_file.data().size()); ++i)
                        if (file.data()[i] != old_file.data()[i]) first = std::min(first, i), last = i;
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
    const auto delta = test::in_place_delta(c.basis, c.next, 1024, false);
    power unlimited;
    paged_file old_file(c.basis);
    old_file.attach(unlimited);
    paged_file new_file = old_file;
    in_place_options o;
    o.allow_unrecorded = true;  // a memory file keeps no record
    o.batch_bytes = 16 << 10;
    REQUIRE(patch_in_place(pipe_opener_of(delta), new_file, o).ok());
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
        CHECK_FALSE(patch_in_place(pipe_opener_of(delta), file, o).ok());
        p.budget = UINT64_MAX;
        file.power_cut(fate(k), k);
        if (!file.same(old_file) && !file.same(new_file)) {
            ++torn;
            CHECK(file.marked == std::string());
        }
    }
    CHECK(torn > 0);
}

TEST_CASE("journal: a mismatch found when the written file is verified rolls it back") {
    const auto c = crash_cases()[0];
    const auto delta = test::in_place_delta(c.basis, c.next, 1024, true);
    power p;
    paged_file file(c.basis);
    file.attach(p);
    file.make_hole(96 << 10, (96 << 10) + (256 << 10));
    const paged_file before = file;
    memory_journal j;
    in_place_options o;
    o.allow_unrecorded = true;  // a memory file keeps no record
    o.journal = &j;
    file.damage_next_write = true;  // the first write reaching the file is damaged
    auto done = patch_in_place(pipe_opener_of(delta), file, o);
    REQUIRE_FALSE(done.ok());
    CHECK(done.err().code == errc::corrupt);
    CHECK(done.err().message.find("rolled back") != std::string::npos);
    CHECK(file.same(before));
    CHECK_FALSE(j.present);
}

TEST_CASE("journal: damaged journals change nothing; one never made valid is dropped") {
    const auto c = crash_cases()[0];
    const auto delta = test::in_place_delta(c.basis, c.next, 1024, true);
    // A hot journal: power cut in the middle of the writes.
    power p;
    paged_file file(c.basis);
    file.attach(p);
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
        REQUIRE(patch_in_place(pipe_opener_of(delta), copy, co).ok());
        p.budget = count.used / 2;
    }
    (void)patch_in_place(pipe_opener_of(delta), file, o);
    p.budget = UINT64_MAX;
    file.power_cut(unsynced::torn, 1);
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
        CHECK(file.data() == c.basis);
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
        CHECK(file.data() == c.basis);
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
    paged_file old_file(basis);
    old_file.attach(unlimited);
    old_file.make_hole(96 << 10, 128 << 10);
    paged_file new_file = old_file;
    {
        volatile_journal j(unlimited);
        in_place_options o;
        o.allow_unrecorded = true;  // a memory file keeps no record
        o.journal = &j;
        o.batch_bytes = 16 << 10;
        auto done = patch_in_place(pipe_opener_of(delta), new_file, o);
        REQUIRE(done.ok());
        CHECK(new_file.data() == *expected);
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
        const bool finished = patch_in_place(pipe_opener_of(delta), file, o).ok();
        p.budget = UINT64_MAX;
        file.power_cut(fate(k), k);
        j.reboot();
        REQUIRE(recover_in_place(file, j).ok());
        CHECK((file.same(old_file) || file.same(new_file)));
        if (finished) CHECK(file.same(new_file));
    }
}

TEST_CASE("journal: a hole that runs to an unaligned end is saved up to that end, and rolls back") {
    // The old file ends inside a 4 KiB block, in a hole: its hole record stops at the
    // old end (one past it would be taken for damage, and the rollback refused).
    test::bytes basis = test::random_bytes(100000 + 123, 91);
    test::bytes next = basis;
    std::fill(next.begin() + 60000, next.end(), 7);  // writes over the hole to the end
    const auto delta = test::in_place_delta(basis, next, 1024, true);
    power p;
    paged_file file(basis);
    file.attach(p);
    file.make_hole(64 << 10, file.size());
    const paged_file before = file;
    patch_rolled_back(file, delta);
    CHECK(file.same(before));
}

TEST_CASE("journal: appending into the block of an unaligned old end that is a hole rolls back to the hole") {
    // Bytes written past the old end into the block holding it allocate that block:
    // its old part, a hole, is saved, so that the rollback frees the block again.
    // 98 blocks of 1 KiB: the old end is half way into a 4 KiB block, and the delta
    // copies every old block, so the first write starts at the old end.
    paged_file file(test::random_bytes(98 << 10, 92));
    file.make_hole(64 << 10, file.size());  // to the end, through the last, partial block
    const paged_file before = file;
    test::bytes next = file.data();
    const test::bytes tail = test::random_bytes(3000, 93);
    next.insert(next.end(), tail.begin(), tail.end());  // written from the old end, in its block
    const auto delta = test::in_place_delta(file.data(), next, 1024, true);
    patch_rolled_back(file, delta);
    CHECK(file.data() == before.data());
    CHECK(file.stored_pages() == before.stored_pages());
}
