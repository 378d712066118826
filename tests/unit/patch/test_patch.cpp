// test_patch.cpp - the patch decoder on hand-made commands, and every error case.
#include "test_helpers.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <algorithm>
#include <limits>
#include <string>

#include <doctest/doctest.h>

using namespace rdelta;

namespace {
const test::bytes patch_basis = test::from_string("0123456789abcdefghij");

result<std::vector<std::uint8_t>> patch_hex(const char* hex) {
    return apply_patch(patch_basis, test::from_hex(hex));
}

std::string patch_output(const char* hex) {
    auto r = patch_hex(hex);
    REQUIRE(r.ok());
    return std::string(r->begin(), r->end());
}

errc patch_error(const char* hex) {
    auto r = patch_hex(hex);
    REQUIRE(!r.ok());
    return r.err().code;
}
}  // namespace

TEST_CASE("every opcode form") {
    CHECK(patch_output("72730236 00") == "");
    CHECK(patch_output("72730236 03 414243 00") == "ABC");
    CHECK(patch_output("72730236 41 02 5859 00") == "XY");
    CHECK(patch_output("72730236 42 0001 5a 00") == "Z");  // non-minimal LITERAL_N2 of 1
    CHECK(patch_output("72730236 43 00000001 5a 00") == "Z");
    CHECK(patch_output("72730236 44 0000000000000001 5a 00") == "Z");
    CHECK(patch_output("72730236 45 00 05 00") == "01234");
    CHECK(patch_output("72730236 4a 000a 0003 00") == "abc");
    CHECK(patch_output("72730236 54 0000000000000010 0000000000000004 00") == "ghij");  // COPY_N8_N8
    CHECK(patch_output("72730236 45 0a 02 02 2d2d 45 00 02 00") == "ab--01");
}

TEST_CASE("apply_patch reserves its output from the delta's commands, within basis + delta") {
    // COPYs of 200,000 and 16 bytes and a 3-byte LITERAL: handed over in several
    // pieces by the job, yet the output vector is sized once.
    std::vector<std::uint8_t> big(200000);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7);
    const auto delta = test::from_hex("72730236 4f 00000000 00030d40 45 00 10 03 414243 00");
    auto out = apply_patch(big, delta);
    REQUIRE_MESSAGE(out.ok(), out.err().message);
    CHECK(out->size() == 200019);
    CHECK(out->capacity() == 200019);
    CHECK(std::equal(big.begin(), big.end(), out->begin()));
    // 64 COPYs of the whole 20-byte basis: 1,280 bytes, past the hint's cap of
    // basis + delta (20 + 4 + 64 * 3 + 1), so the vector grows as it must.
    std::string hex = "72730236";
    for (int i = 0; i < 64; ++i) hex += " 45 00 14";
    hex += " 00";
    auto many = apply_patch(patch_basis, test::from_hex(hex.c_str()));
    REQUIRE(many.ok());
    CHECK(many->size() == 1280);
    CHECK(std::string(many->begin() + 1260, many->end()) == "0123456789abcdefghij");
    // A COPY past the basis stops the count; the patch job still reports it.
    CHECK(patch_error("72730236 45 00 14 45 10 10 00") == errc::input_ended);
}

TEST_CASE("bytes after END are ignored") {
    CHECK(patch_output("72730236 01 41 00 ffffffff") == "A");
}

TEST_CASE("each error case gives rdiff's code") {
    CHECK(patch_error("") == errc::input_ended);
    CHECK(patch_error("7273") == errc::input_ended);
    CHECK(patch_error("72730236") == errc::input_ended);  // missing END
    CHECK(patch_error("72730237 00") == errc::bad_magic);
    CHECK(patch_error("72730236 45 00") == errc::input_ended);    // truncated parameters
    CHECK(patch_error("72730236 05 4142") == errc::input_ended);  // truncated literal
    CHECK(patch_error("72730236 44 7fffffffffffffff 41") == errc::input_ended);
    CHECK(patch_error("72730236 55") == errc::corrupt);
    CHECK(patch_error("72730236 ff") == errc::corrupt);
    CHECK(patch_error("72730236 41 00 00") == errc::corrupt);                   // literal length 0
    CHECK(patch_error("72730236 44 ffffffffffffffff 00") == errc::corrupt);     // negative
    CHECK(patch_error("72730236 45 00 00 00") == errc::corrupt);                // copy length 0
    CHECK(patch_error("72730236 51 ffffffffffffffff 01 00") == errc::corrupt);  // negative position
    CHECK(patch_error("72730236 45 14 01 00") == errc::input_ended);            // copy at EOF
    CHECK(patch_error("72730236 45 10 08 00") == errc::input_ended);            // copy overrunning EOF
}

TEST_CASE("error messages name the delta and say what is wrong") {
    memory_basis reader(patch_basis);
    patch_options opts;
    opts.delta_name = "delta.bin";
    auto j = make_patch_job(reader, opts);
    const auto d = test::from_hex("72730236 45 10 08 00");
    std::uint8_t out[64];
    buffers io{d.data(), d.size(), true, out, sizeof out};
    auto st = j->iterate(io);
    REQUIRE(!st.ok());
    CHECK(st.err().message ==
          "delta.bin: COPY at offset 4 reads basis bytes 16..24, past the end of the basis (20 bytes)");
    // The bytes that existed were produced first, as rdiff does.
    CHECK(io.next_out - out == 4);
}

TEST_CASE("output limit bounds a hostile delta") {
    memory_basis reader(patch_basis);
    patch_options opts;
    opts.max_output = 10;
    auto j = make_patch_job(reader, opts);
    const auto d = test::from_hex("72730236 45 00 14 00");
    std::uint8_t out[64];
    buffers io{d.data(), d.size(), true, out, sizeof out};
    auto st = j->iterate(io);
    REQUIRE(!st.ok());
    CHECK(st.err().code == errc::mem_error);
    // Never written past the limit, whatever the window sizes.
    CHECK(io.next_out - out == 10);
}

TEST_CASE("declared lengths near 2^63 saturate the totals instead of overflowing them") {
    // A literal of 1 byte, then one that declares 2^63 - 1 bytes (one is there); the
    // same with COPYs. The totals are counted from the headers, before the data fails.
    for (const char* hex :
         {"72730236 01 41 44 7fffffffffffffff 42", "72730236 45 00 01 54 0000000000000000 7fffffffffffffff"}) {
        CAPTURE(hex);
        memory_basis reader(patch_basis);
        auto j = make_patch_job(reader);
        const auto d = test::from_hex(hex);
        std::vector<std::uint8_t> out(64);
        buffers io{d.data(), d.size(), true, out.data(), out.size()};
        auto st = j->iterate(io);
        REQUIRE(!st.ok());
        const std::int64_t total =
            std::string(hex).find(" 54 ") != std::string::npos ? j->stats().copy_bytes : j->stats().lit_bytes;
        CHECK(total == std::numeric_limits<std::int64_t>::max());
    }
}

TEST_CASE("output limit holds for literals fed a byte at a time") {
    memory_basis reader(patch_basis);
    patch_options opts;
    opts.max_output = 3;
    auto j = make_patch_job(reader, opts);
    const auto d = test::from_hex("72730236 05 4142434445 00");
    std::uint8_t out[64];
    std::size_t written = 0;
    bool failed = false;
    for (std::size_t off = 0; off < d.size() && !failed; ++off) {
        buffers io{d.data() + off, 1, off + 1 == d.size(), out + written, sizeof out - written};
        auto st = j->iterate(io);
        written = static_cast<std::size_t>(io.next_out - out);
        failed = !st.ok();
        if (failed) CHECK(st.err().code == errc::mem_error);
    }
    CHECK(failed);
    CHECK(written == 3);
}

TEST_CASE("byte-at-a-time input and output give the same result") {
    const auto d = test::from_hex("72730236 45 0a 02 41 03 585858 4a 0000 0005 00");
    memory_basis reader(patch_basis);
    auto j = make_patch_job(reader);
    std::string out;
    std::size_t off = 0;
    for (int guard = 0; guard < 1000; ++guard) {
        std::uint8_t one;
        const std::size_t n = off < d.size() ? 1 : 0;
        buffers io{d.data() + off, n, off + n >= d.size(), &one, 1};
        auto st = j->iterate(io);
        REQUIRE(st.ok());
        off += n - io.avail_in;
        if (io.avail_out == 0) out += static_cast<char>(one);
        if (*st == job_status::done) break;
    }
    CHECK(out == "abXXX01234");
}

TEST_CASE("checksum trailer: written by delta, verified by patch") {
    const auto basis_bytes = test::random_bytes(5000, 41);
    auto next = basis_bytes;
    next[1234] ^= 0x55;
    auto sig_bytes = make_signature(basis_bytes, {0x72730147, 256, 32});
    REQUIRE(sig_bytes.ok());
    auto sig = load_signature(*sig_bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index().ok());
    auto plain = make_delta(*sig, next, 0, delta_options{{1}, false});
    auto checked = make_delta(*sig, next, 0, delta_options{{1}, true});
    REQUIRE(plain.ok());
    REQUIRE(checked.ok());
    // The same commands, then 32 bytes: "rdcm", the length, the chunk size, the root.
    REQUIRE(checked->size() == plain->size() + 32);
    CHECK(std::equal(plain->begin(), plain->end(), checked->begin()));
    CHECK(test::to_hex(checked->data() + plain->size(), 12) == "7264636d0000000000001388");

    auto good = apply_patch(basis_bytes, *checked);
    REQUIRE(good.ok());
    CHECK(*good == next);

    // Another basis: the output differs from what the trailer describes.
    auto other = basis_bytes;
    other[100] ^= 1;
    auto bad = apply_patch(other, *checked);
    REQUIRE(!bad.ok());
    CHECK(bad.err().code == errc::corrupt);

    // A damaged trailer is caught too; other bytes after END are still ignored.
    auto damaged = *checked;
    damaged.back() ^= 1;
    CHECK(!apply_patch(basis_bytes, damaged).ok());
    auto junk = *plain;
    junk.insert(junk.end(), {1, 2, 3});
    CHECK(apply_patch(basis_bytes, junk).ok());
}

TEST_CASE("require_checksum refuses a delta without a trailer") {
    memory_basis reader(patch_basis);
    patch_options opts;
    opts.require_checksum = true;
    auto j = make_patch_job(reader, opts);
    const auto d = test::from_hex("72730236 01 41 00");
    std::uint8_t out[16];
    buffers io{d.data(), d.size(), true, out, sizeof out};
    auto st = j->iterate(io);
    REQUIRE(!st.ok());
    CHECK(st.err().code == errc::corrupt);
}

namespace {

// Patch with take_trailer set: the output and the trailer handed over (if any).
result<test::bytes> patch_taking_trailer(const test::bytes& basis_bytes, const test::bytes& delta,
                                         test::bytes& trailer) {
    memory_basis reader(basis_bytes);
    patch_options opts;
    opts.take_trailer = [&](std::span<const std::uint8_t> t) { trailer.assign(t.begin(), t.end()); };
    auto j = make_patch_job(reader, opts);
    test::bytes out(1 << 16);
    buffers io{delta.data(), delta.size(), true, out.data(), out.size()};
    auto st = j->iterate(io);
    if (!st) return std::move(st).err();
    REQUIRE(*st == job_status::done);
    out.resize(out.size() - io.avail_out);
    return out;
}

}  // namespace

TEST_CASE("take_trailer: the caller checks its output with verify_trailer") {
    const auto basis_bytes = test::random_bytes(9000, 43);
    auto next = basis_bytes;
    next.resize(next.size() + 3000, 0);  // ends in zeros, as a sparse file's final hole
    next[77] ^= 0x5a;
    auto sig_bytes = make_signature(basis_bytes, {0x72730147, 512, 32});
    REQUIRE(sig_bytes.ok());
    auto sig = load_signature(*sig_bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index().ok());
    auto checked = make_delta(*sig, next, 0, delta_options{{1}, true});
    REQUIRE(checked.ok());

    test::bytes trailer;
    auto out = patch_taking_trailer(basis_bytes, *checked, trailer);
    REQUIRE(out.ok());
    CHECK(*out == next);
    REQUIRE(trailer.size() == 32);
    CHECK(std::equal(trailer.begin(), trailer.end(), checked->end() - 32));
    memory_basis written(*out);
    CHECK(verify_trailer(trailer, written, out->size(), "d").ok());
    // An output whose final zeros are not written yet reads as zeros past its end.
    test::bytes shorter(out->begin(), out->end() - 3000);
    memory_basis short_reader(shorter);
    CHECK(verify_trailer(trailer, short_reader, out->size(), "d").ok());
    // Another output: corrupt, with the patch job's message.
    auto wrong = *out;
    wrong[5000] ^= 1;
    memory_basis wrong_reader(wrong);
    auto bad = verify_trailer(trailer, wrong_reader, wrong.size(), "d");
    REQUIRE(!bad.ok());
    CHECK(bad.err().code == errc::corrupt);
    CHECK(bad.err().message.find("d: the patched output (12000 bytes) does not match") == 0);

    // A length that differs is caught by the job itself; no trailer: nothing handed over.
    auto other_len = *checked;
    other_len[other_len.size() - 21] ^= 1;  // last byte of the length field
    trailer.clear();
    auto wrong_len = patch_taking_trailer(basis_bytes, other_len, trailer);
    REQUIRE(!wrong_len.ok());
    CHECK(wrong_len.err().code == errc::corrupt);
    auto plain = make_delta(*sig, next, 0, delta_options{{1}, false});  // no trailer to hand over
    REQUIRE(plain.ok());
    trailer.clear();
    CHECK(patch_taking_trailer(basis_bytes, *plain, trailer).ok());
    CHECK(trailer.empty());
}

namespace {

// A basis whose [hole_from, hole_to) is a hole (zeros); any range past its end is
// "a hole" too, as SEEK_DATA reports. Counts bytes read inside the hole.
class holey_basis final : public basis_reader {
public:
    holey_basis(const test::bytes& b, std::uint64_t from, std::uint64_t to) : bytes_(b), from_(from), to_(to) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos >= bytes_.size()) return std::size_t{0};
        const std::size_t n = std::min<std::size_t>(out.size(), bytes_.size() - pos);
        if (pos < to_ && pos + n > from_) hole_reads += n;
        std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(pos), n, out.begin());
        return n;
    }
    std::optional<std::uint64_t> size() const override { return bytes_.size(); }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override {
        return pos >= bytes_.size() || (pos >= from_ && pos + len <= to_);
    }
    std::size_t hole_reads = 0;

private:
    const test::bytes& bytes_;
    std::uint64_t from_, to_;
};

}  // namespace

TEST_CASE("COPY from a hole of the basis does not read it; past the end is still an error") {
    test::bytes basis_bytes = test::random_bytes(4096 + 65536 + 4096, 44);
    std::fill_n(basis_bytes.begin() + 4096, 65536, 0);
    // COPY 1000 bytes at 2000 (data, runs into nothing), COPY 60000 at 5000 (hole), COPY 100 at 70000 (data).
    const auto delta = test::from_hex("72730236 4a 07d0 03e8 4a 1388 ea60 4d 00011170 64 00");
    holey_basis reader(basis_bytes, 4096, 4096 + 65536);
    auto j = make_patch_job(reader, {});
    test::bytes out(1 << 17);
    buffers io{delta.data(), delta.size(), true, out.data(), out.size()};
    auto st = j->iterate(io);
    REQUIRE(st.ok());
    out.resize(out.size() - io.avail_out);
    test::bytes expected(basis_bytes.begin() + 2000, basis_bytes.begin() + 3000);
    expected.resize(expected.size() + 60000, 0);
    expected.insert(expected.end(), basis_bytes.begin() + 70000, basis_bytes.begin() + 70100);
    CHECK(out == expected);
    CHECK(reader.hole_reads == 0);

    const auto past_end = test::from_hex("72730236 4e 00011170 2000 00");  // 8192 bytes from 70000: 3632 missing
    holey_basis reader2(basis_bytes, 4096, 4096 + 65536);
    auto j2 = make_patch_job(reader2, {});
    test::bytes out2(1 << 16);
    buffers io2{past_end.data(), past_end.size(), true, out2.data(), out2.size()};
    auto st2 = j2->iterate(io2);
    REQUIRE(!st2.ok());
    CHECK(st2.err().code == errc::input_ended);
}

namespace {

// A delta of many short commands: runs of COPYs that continue one another (from
// after their destination, to the same offset, and from before it), COPYs that do
// not, and adjacent LITERALs; with the output it makes and its command counts.
struct short_commands {
    test::bytes delta, output;
    std::int64_t lit_cmds = 0, lit_bytes = 0, copy_cmds = 0, copy_bytes = 0;
};

short_commands many_short_commands(const test::bytes& b) {
    short_commands s;
    s.delta = test::from_hex("72730236");
    auto copy = [&](std::uint32_t pos, std::uint8_t len) {
        s.delta.push_back(0x4d);  // 4-byte position, 1-byte length
        for (int k = 3; k >= 0; --k) s.delta.push_back(static_cast<std::uint8_t>(pos >> (8 * k)));
        s.delta.push_back(len);
        s.output.insert(s.output.end(), b.begin() + pos, b.begin() + pos + len);
        ++s.copy_cmds, s.copy_bytes += len;
    };
    auto literal = [&](std::uint8_t n, std::uint8_t value) {
        s.delta.push_back(n);
        s.delta.insert(s.delta.end(), n, value);
        s.output.insert(s.output.end(), n, value);
        ++s.lit_cmds, s.lit_bytes += n;
    };
    for (std::uint32_t i = 0; i < 3000; ++i) copy(1000 + 2 * i, 2);  // 6000 bytes from 1000 on
    for (int i = 0; i < 50; ++i) literal(3, static_cast<std::uint8_t>(i));
    const auto same_from = static_cast<std::uint32_t>(s.output.size());
    for (std::uint32_t i = 0; i < 1000; ++i) copy(same_from + i, 1);  // to the same offset
    for (std::uint32_t i = 0; i < 500; ++i)                           // forward again, every other one a jump
        copy(static_cast<std::uint32_t>(s.output.size()) + 5000 + (i % 2) * 7, 3);
    for (std::uint32_t i = 0; i < 400; ++i) copy(same_from + 2 * i, 2);  // from untouched bytes before it
    literal(64, 0);
    copy(static_cast<std::uint32_t>(b.size()) - 5, 5);
    s.delta.push_back(0x00);
    return s;
}

}  // namespace

TEST_CASE("COPYs that continue one another give the same output and statistics as one by one") {
    const test::bytes b = test::random_bytes(64 << 10, 61);
    const auto s = many_short_commands(b);
    // Inputs cut at every size (headers split across pieces) and small output windows.
    for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, s.delta.size()}) {
        CAPTURE(piece);
        memory_basis reader(b);
        auto j = make_patch_job(reader);
        test::bytes out;
        std::uint8_t window[333];
        std::size_t at = 0;
        for (;;) {
            const std::size_t n = std::min(piece, s.delta.size() - at);
            buffers io{s.delta.data() + at, n, at + n == s.delta.size(), window, sizeof window};
            auto st = j->iterate(io);
            REQUIRE(st.ok());
            at += n - io.avail_in;
            out.insert(out.end(), window, window + (sizeof window - io.avail_out));
            if (*st == job_status::done) break;
        }
        CHECK(out == s.output);
        const job_stats& t = j->stats();
        CHECK(t.copy_cmds == s.copy_cmds);
        CHECK(t.copy_bytes == s.copy_bytes);
        CHECK(t.copy_cmdbytes == 6 * s.copy_cmds);
        CHECK(t.lit_cmds == s.lit_cmds);
        CHECK(t.lit_bytes == s.lit_bytes);
        CHECK(t.in_bytes == static_cast<std::int64_t>(s.delta.size()));
        CHECK(t.out_bytes == static_cast<std::int64_t>(s.output.size()));
    }
    // A run that goes past the basis end fails at the COPY that does, with its offset.
    test::bytes past = s.delta;
    past.pop_back();
    const std::size_t last_at = past.size();
    for (std::uint8_t x : test::from_hex("4d 00010000 04 00")) past.push_back(x);  // continues the last COPY
    auto r = apply_patch(b, past);
    REQUIRE(!r.ok());
    CHECK(r.err().code == errc::input_ended);
    CHECK(r.err().message.find("COPY at offset " + std::to_string(last_at) + " ") != std::string::npos);
}
