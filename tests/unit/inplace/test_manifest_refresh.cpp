// test_manifest_refresh.cpp - the manifest stays true to the image across patches
// that publish no new one: rolled back, finished by recovery after their commit,
// or made from a delta without a chunked trailer (inplace/manifest_refresh.hpp).
#include "in_place_delta.hpp"
#include "paged_file.hpp"
#include "test_helpers.hpp"
#include "volatile_journal.hpp"

#include "format/chunk_hasher.hpp"
#include "inplace/manifest_format.hpp"

#include <rdelta/in_place.hpp>
#include <rdelta/journal.hpp>
#include <rdelta/manifest.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace rdelta;
using test::paged_file;

namespace {

// The manifest describes `file` exactly: a scrub finds no change and no mismatch,
// and its root is the file's.
void check_true_to(paged_file& file, memory_manifest& m) {
    auto r = scrub_against_manifest(file, m);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.err().message));
    CHECK_FALSE(r->changed_since);
    CHECK(r->clean());
    detail::chunk_hasher whole;
    whole.update(file.data().data(), file.data().size());
    detail::manifest_header h;
    REQUIRE(detail::decode_manifest_header(m.bytes.data(), h));
    CHECK(h.length == file.data().size());
    CHECK(h.root == whole.root());
}

// A memory manifest that shares the power of the file it describes: without power,
// nothing is staged or published.
class powered_manifest final : public manifest_storage {
public:
    powered_manifest(test::power& p, memory_manifest& m) : p_(p), m_(m) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override { return m_.read(pos, out); }
    result<void> stage() override { return p_.spend() ? m_.stage() : test::power_out(); }
    result<void> write_staged(std::uint64_t pos, std::span<const std::uint8_t> b) override {
        return p_.spend() ? m_.write_staged(pos, b) : test::power_out();
    }
    result<void> publish() override { return p_.spend() ? m_.publish() : test::power_out(); }
    void discard_staged() override { m_.discard_staged(); }
    const std::string& name() const override { return m_.name(); }

private:
    test::power& p_;
    memory_manifest& m_;
};

// A memory journal whose header cannot be written (a full disk): the patch stops
// after the image's note was set, before it writes anything.
class headerless_journal final : public journal_storage {
public:
    bool exists() override { return j.exists(); }
    result<void> create() override { return j.create(); }
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override { return j.read(pos, out); }
    result<void> write(std::uint64_t pos, std::span<const std::uint8_t> b) override {
        if (pos < 4096 && b.size() < 4096) return fail(errc::io_error, "journal: no space left on device");
        return j.write(pos, b);
    }
    result<void> sync() override { return {}; }
    result<void> sync_folder() override { return {}; }
    result<void> remove() override { return j.remove(); }
    const std::string& name() const override { return j.name(); }

    memory_journal j;
};

// One patch of `start` (whose manifest is `start_m`) by `delta`, cut by a power
// failure after `k` operations, then recovered: the file, its manifest and what
// recovery did.
struct cut_run {
    paged_file file;
    memory_manifest m;
    recovery_action action = recovery_action::none;
    bool patched = false;
};
cut_run patch_cut_after(const paged_file& start, const memory_manifest& start_m, const test::bytes& delta,
                        std::uint64_t k, std::uint64_t& used) {
    cut_run run{start, start_m};
    test::power p;
    run.file.keeps_notes = true;  // a file system with user attributes: the note binds the journal
    run.file.attach(p);
    test::volatile_journal j(p);
    powered_manifest m(p, run.m);
    in_place_options o;
    o.allow_unrecorded = true;  // a memory file keeps no record
    o.journal = &j, o.manifest = &m, o.batch_bytes = 16 << 10;
    p.budget = k;
    run.patched = patch_in_place(test::opener_of(delta), run.file, o).ok();
    used = p.used;
    p.budget = UINT64_MAX;  // the power is back
    run.file.power_cut(k % 2 ? test::unsynced::lost : test::unsynced::torn, k);
    j.reboot();
    run.file.count = {};
    auto r = recover_in_place(run.file, j, nullptr, &m);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.err().message));
    run.action = r->action;
    static test::power unlimited;  // `p` ends here: the file goes on without a budget
    run.file.attach(unlimited);
    return run;
}

// `file` patched from `from` to `to` with a manifest kept in `m`.
void patch_with_manifest(paged_file& file, memory_manifest& m, const test::bytes& from, const test::bytes& to) {
    memory_journal j;
    in_place_options o;
    o.allow_unrecorded = true;
    o.journal = &j, o.manifest = &m;
    const auto d = test::in_place_delta(from, to, 2048, true);
    auto done = patch_in_place(test::opener_of(d), file, o);
    REQUIRE_MESSAGE(done.ok(), (done.ok() ? "" : done.err().message));
    CHECK(done->manifest_published);
}

// 4 MiB of data with a 1 MiB run of zeros.
test::bytes first_night() {
    auto b = test::random_bytes(4 << 20, 71);
    std::fill(b.begin() + (1 << 20), b.begin() + (2 << 20), 0);
    return b;
}
test::bytes edited(test::bytes b, std::uint8_t how) {
    for (std::size_t at : {90000u, 2600000u, 3900000u})
        for (std::size_t i = 0; i < 2000; ++i) b[at + i] ^= how;
    return b;
}

struct patcher {
    paged_file file;
    memory_manifest m;
    memory_journal journal;
    in_place_options o;
    explicit patcher(const test::bytes& start) : file(start) {
        o.allow_unrecorded = true;  // a memory file keeps no record
        o.journal = &journal;
        o.manifest = &m;
    }
    result<in_place_stats> patch(const test::bytes& from, const test::bytes& to, bool chunked = true) {
        const auto d = test::in_place_delta(from, to, 2048, chunked);
        return patch_in_place(test::opener_of(d), file, o);
    }
};

}  // namespace

TEST_CASE("manifest: a patch finished by recovery after its commit leaves the manifest up to date") {
    const auto v1 = first_night(), v2 = edited(v1, 0x33);
    auto same_size = edited(v2, 0x5c), grown = same_size, shrunk = same_size;
    grown.resize(grown.size() + 150001, 0x42);
    shrunk.resize(3000001);
    paged_file start(v1);
    memory_manifest start_m;
    patch_with_manifest(start, start_m, v1, v2);
    for (const test::bytes* v3 : {&same_size, &grown, &shrunk}) {
        CAPTURE(v3->size());
        const auto delta = test::in_place_delta(v2, *v3, 2048, true);
        std::uint64_t total = 0;
        (void)patch_cut_after(start, start_m, delta, UINT64_MAX, total);
        int completed = 0;
        for (std::uint64_t k = 0, used = 0; k < total; ++k) {
            CAPTURE(k);
            auto run = patch_cut_after(start, start_m, delta, k, used);
            if (run.action != recovery_action::completed) continue;
            ++completed;
            CHECK(run.file.data() == *v3);
            // Only the chunks the patch changed were read again (3 of 64, and the growth).
            CHECK(run.file.count.bytes_read <= 3 * 65536 + (v3 == &grown ? 150001 + 65536 : 0));
            check_true_to(run.file, run.m);
            if (completed > 1) continue;
            // The next night uses it.
            memory_journal j;
            in_place_options o;
            o.allow_unrecorded = true;
            o.journal = &j, o.manifest = &run.m;
            auto next = patch_in_place(test::opener_of(test::in_place_delta(*v3, v1, 2048, true)), run.file, o);
            REQUIRE(next.ok());
            CHECK(next->manifest_used);
            check_true_to(run.file, run.m);
        }
        CHECK(completed > 0);
    }
}

TEST_CASE("manifest: a rolled-back patch leaves the manifest naming the file's new change time") {
    const auto v1 = first_night(), v2 = edited(v1, 0x21);
    patcher p(v1);
    REQUIRE(p.patch(v1, v2).ok());
    p.file.damage_next_write = true;  // the check after writing fails: rolled back
    auto bad = p.patch(v2, edited(v2, 0x17));
    REQUIRE_FALSE(bad.ok());
    CHECK(p.file.data() == v2);
    check_true_to(p.file, p.m);
    auto next = p.patch(v2, v1);
    REQUIRE(next.ok());
    CHECK(next->manifest_used);
    // Stopped before its first write, once the image's note had come (and gone).
    headerless_journal full;
    p.o.journal = &full;
    const auto marks = p.file.marks;
    auto refused = p.patch(v1, v2);
    REQUIRE_FALSE(refused.ok());
    CHECK(p.file.marks == marks + 1);
    CHECK(p.file.data() == v1);
    check_true_to(p.file, p.m);
}

TEST_CASE("manifest: one that did not describe the file as the patch began is emptied, not refreshed") {
    const auto v1 = first_night(), v2 = edited(v1, 0x44), v3 = edited(v2, 0x45);
    patcher p(v1);
    REQUIRE(p.patch(v1, v2).ok());
    SUBCASE("a finished patch's recovery") {
        p.file.changes += 1;  // changed by other means since: the manifest is stale
        const auto delta = test::in_place_delta(v2, v3, 2048, true);
        std::uint64_t total = 0;
        (void)patch_cut_after(p.file, p.m, delta, UINT64_MAX, total);
        int completed = 0;
        for (std::uint64_t k = 0, used = 0; k < total; ++k) {
            CAPTURE(k);
            auto run = patch_cut_after(p.file, p.m, delta, k, used);
            if (run.action != recovery_action::completed) continue;
            ++completed;
            CHECK(run.m.bytes.empty());
            CHECK(scrub_against_manifest(run.file, run.m).err().code == errc::io_error);  // "no manifest"
        }
        CHECK(completed > 0);
    }
    SUBCASE("a patch whose delta has no chunked trailer") {
        auto done = p.patch(v2, v3, false);
        REQUIRE(done.ok());
        CHECK_FALSE(done->manifest_published);
        CHECK(p.m.bytes.empty());
    }
    SUBCASE("a rollback leaves a stale manifest as it was") {
        p.file.changes += 1;
        const auto before = p.m.bytes;
        p.file.damage_next_write = true;
        REQUIRE_FALSE(p.patch(v2, v3).ok());
        CHECK(p.m.bytes == before);
    }
}

TEST_CASE("manifest: a power cut at any point leaves it true to the file, or empty") {
    auto v1 = test::random_bytes(5 * 65536 + 1000, 72);
    auto v2 = v1;
    for (std::size_t at = 1000; at < v1.size(); at += 30000) v2[at] ^= 0x77;
    v2.resize(v2.size() + 70000, 0x19);
    paged_file start(v2);
    memory_manifest start_m;
    patch_with_manifest(start, start_m, v2, v1);  // v1, with its manifest
    REQUIRE(start.data() == v1);
    check_true_to(start, start_m);
    const auto delta = test::in_place_delta(v1, v2, 1024, true);
    std::uint64_t total = 0;
    REQUIRE(patch_cut_after(start, start_m, delta, UINT64_MAX, total).patched);
    int kept[5] = {};  // by recovery action
    for (std::uint64_t k = 0, used = 0; k <= total; ++k) {
        CAPTURE(k);
        auto run = patch_cut_after(start, start_m, delta, k, used);
        CAPTURE(static_cast<int>(run.action));
        CHECK((run.file.data() == v1 || run.file.data() == v2));
        if (run.m.bytes.empty()) continue;  // emptied: a scrub says there is none
        check_true_to(run.file, run.m);
        ++kept[static_cast<int>(run.action)];
    }
    // Brought up to date in each way: never begun, rolled back, finished.
    CHECK(kept[static_cast<int>(recovery_action::discarded)] > 0);
    CHECK(kept[static_cast<int>(recovery_action::rolled_back)] > 0);
    CHECK(kept[static_cast<int>(recovery_action::completed)] > 0);
}
