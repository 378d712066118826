// test_compression.cpp - the library's compressed streams (rdelta/compression.hpp):
// magic-byte detection, a round trip through the writer and the reader for every
// codec at hostile chunk sizes, and truncated, corrupt and failing streams turned
// into error values.
#include "test_helpers.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/job.hpp>
#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>

using namespace rdelta;

namespace {

constexpr codec all_codecs[] = {codec::gzip, codec::bzip2, codec::zstd};

/// A byte_source owning its bytes; can fail once `fail_at` bytes have been read.
class owned_source final : public byte_source {
public:
    explicit owned_source(test::bytes data, std::size_t fail_at = SIZE_MAX)
        : data_(std::move(data)), fail_at_(fail_at) {}
    result<std::size_t> read_full(std::span<std::uint8_t> out) override {
        if (pos_ + out.size() > fail_at_) return fail(errc::io_error, name_ + ": read failed: Input/output error");
        const std::size_t got = std::min(out.size(), data_.size() - pos_);
        if (got > 0) std::memcpy(out.data(), data_.data() + pos_, got);
        pos_ += got;
        return got;
    }
    std::optional<std::uint64_t> size() const noexcept override { return data_.size(); }
    const std::string& name() const noexcept override { return name_; }

private:
    test::bytes data_;
    std::size_t pos_ = 0, fail_at_;
    std::string name_ = "input.bin";
};

/// Compress `data` with writes of `chunk` bytes.
test::bytes compress(codec c, int level, const test::bytes& data, std::size_t chunk) {
    test::bytes out;
    auto w = compressing_writer::open({c, level}, "out.bin", [&](std::span<const std::uint8_t> b) -> result<void> {
        out.insert(out.end(), b.begin(), b.end());
        return {};
    });
    REQUIRE(w);
    for (std::size_t pos = 0; pos < data.size(); pos += chunk) {
        const std::size_t n = std::min(chunk, data.size() - pos);
        REQUIRE(w->write({data.data() + pos, n}));
    }
    REQUIRE(w->finish());
    return out;
}

/// Read `source` whole with reads of `chunk` bytes (or the error).
result<test::bytes> read_all(byte_source& source, std::size_t chunk) {
    test::bytes out;
    test::bytes buf(chunk);
    for (;;) {
        auto got = source.read_full(buf);
        if (!got) return std::move(got).err();
        out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*got));
        if (*got < chunk) return out;
    }
}

result<test::bytes> decompress(test::bytes compressed, std::size_t chunk = 1 << 16) {
    owned_source file(std::move(compressed));
    auto reader = decompressing_reader::open(file);
    if (!reader) return std::move(reader).err();
    return read_all(*reader, chunk);
}

/// Compressible but not trivial: text-like bytes from a small alphabet.
test::bytes sample(std::size_t n) {
    return test::random_bytes(n, 7, 12);
}

}  // namespace

TEST_CASE("codec detection by magic bytes") {
    auto detect = [](std::string_view hex) { return detect_codec(test::from_hex(hex)); };
    CHECK(detect("1f8b") == codec::gzip);
    CHECK(detect("1f8b0800") == codec::gzip);
    CHECK(detect("425a68") == codec::bzip2);  // "BZh"
    CHECK(detect("425a6839") == codec::bzip2);
    CHECK(detect("28b52ffd") == codec::zstd);
    CHECK(detect("28b52ffd00") == codec::zstd);
    // A zstd stream may start with a skippable frame (pzstd's output does): any of
    // the 16 magics 0x184D2A50..5F.
    for (int low = 0; low < 16; ++low) {
        CAPTURE(low);
        CHECK(detect_codec(test::bytes{static_cast<std::uint8_t>(0x50 + low), 0x2a, 0x4d, 0x18}) == codec::zstd);
    }
    CHECK(detect("402a4d18") == codec::none);
    CHECK(detect("502a4d") == codec::none);
    // Too short to tell, or not a magic at all.
    for (const char* hex : {"", "1f", "1f8c", "425a", "425a48", "28b52f", "28b52ffe", "00000000"}) {
        CAPTURE(hex);
        CHECK(detect(hex) == codec::none);
    }
    // Every librsync signature and delta magic (they all start "rs").
    for (const char* hex : {"72730236", "72730136", "72730146", "72730147", "72730246", "72730247"}) {
        CAPTURE(hex);
        CHECK(detect(hex) == codec::none);
    }
}

TEST_CASE("levels: the tools' defaults and ranges") {
    CHECK(default_level(codec::gzip) == 6);
    CHECK(default_level(codec::bzip2) == 9);
    CHECK(default_level(codec::zstd) == 3);
    CHECK(max_level(codec::gzip) == 9);
    CHECK(max_level(codec::bzip2) == 9);
    CHECK(max_level(codec::zstd) == 22);
    CHECK(std::string(codec_name(codec::bzip2)) == "bzip2");
    for (int bad : {-1, 23}) {
        auto w = compressing_writer::open({codec::zstd, bad}, "out.bin", [](auto) -> result<void> { return {}; });
        REQUIRE_FALSE(w);
        CHECK(w.err().code == errc::param_error);
        CHECK(w.err().message.starts_with("out.bin: "));
    }
}

TEST_CASE("round trip through writer and reader, tiny and large chunks") {
    const test::bytes data = sample(300000);
    for (codec c : all_codecs) {
        for (int level : {1, default_level(c), max_level(c)}) {
            if (c == codec::zstd && level == max_level(c)) continue;  // slow and adds nothing
            for (std::size_t write_chunk : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, data.size()}) {
                CAPTURE(codec_name(c));
                CAPTURE(level);
                CAPTURE(write_chunk);
                // Byte-at-a-time writes of the whole sample would be slow: a prefix shows the same.
                const std::size_t n = write_chunk < 8 ? 20000 : data.size();
                const test::bytes part(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
                const test::bytes packed = compress(c, level, part, write_chunk);
                CHECK(detect_codec(packed) == c);
                CHECK(packed.size() < part.size());
                for (std::size_t read_chunk :
                     {std::size_t{1}, std::size_t{3}, std::size_t{65537}, std::size_t{1} << 20}) {
                    if (read_chunk < 8 && write_chunk != 7) continue;
                    CAPTURE(read_chunk);
                    auto back = decompress(packed, read_chunk);
                    REQUIRE(back);
                    CHECK(*back == part);
                }
            }
        }
    }
}

TEST_CASE("round trip: empty stream, incompressible data, concatenated streams") {
    const test::bytes noise = test::random_bytes(200000, 3);
    for (codec c : all_codecs) {
        CAPTURE(codec_name(c));
        auto empty = decompress(compress(c, default_level(c), {}, 1));
        REQUIRE(empty);
        CHECK(empty->empty());
        auto back = decompress(compress(c, 1, noise, 1 << 16));
        REQUIRE(back);
        CHECK(*back == noise);
        // Two streams one after the other read as their concatenation (as gzip -d does).
        test::bytes two = compress(c, 1, sample(1000), 100);
        const test::bytes second = compress(c, 1, noise, 1 << 16);
        two.insert(two.end(), second.begin(), second.end());
        auto both = decompress(two);
        REQUIRE(both);
        test::bytes expected = sample(1000);
        expected.insert(expected.end(), noise.begin(), noise.end());
        CHECK(*both == expected);
    }
}

TEST_CASE("an uncompressed input reads unchanged, with its size") {
    for (std::size_t n : {0, 1, 2, 3, 4, 5, 100000}) {
        CAPTURE(n);
        const test::bytes data = test::random_bytes(n, 11);
        owned_source file(data);
        auto reader = decompressing_reader::open(file);
        REQUIRE(reader);
        CHECK(reader->kind() == codec::none);
        CHECK(reader->size() == n);
        CHECK(reader->name() == "input.bin");
        auto back = read_all(*reader, 3);
        REQUIRE(back);
        CHECK(*back == data);
    }
    // codec::none writes through unchanged.
    CHECK(compress(codec::none, 0, test::from_string("rs\x02\x36"), 1) == test::from_string("rs\x02\x36"));
}

TEST_CASE("a compressed input has no size hint") {
    owned_source file(compress(codec::gzip, 6, sample(5000), 5000));
    auto reader = decompressing_reader::open(file);
    REQUIRE(reader);
    CHECK(reader->kind() == codec::gzip);
    CHECK(!reader->size());
}

TEST_CASE("truncated streams: input_ended, naming the input") {
    const test::bytes data = sample(400000);
    for (codec c : all_codecs) {
        const test::bytes packed = compress(c, default_level(c), data, 1 << 16);
        // Inside the compressed data, in the trailer, and one byte short.
        for (std::size_t cut : {packed.size() / 2, packed.size() - 5, packed.size() - 1}) {
            CAPTURE(codec_name(c));
            CAPTURE(cut);
            auto back = decompress(test::bytes(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(cut)));
            REQUIRE_FALSE(back);
            CHECK(back.err().code == errc::input_ended);
            CHECK(back.err().message.starts_with(std::string("input.bin: truncated ") + codec_name(c) + " data: "));
        }
    }
}

TEST_CASE("corrupt streams: corrupt, naming the input") {
    const test::bytes data = sample(400000);
    for (codec c : all_codecs) {
        CAPTURE(codec_name(c));
        test::bytes packed = compress(c, default_level(c), data, 1 << 16);
        // zstd frames written through Boost carry no checksum: corrupt the structure.
        const std::size_t at = c == codec::zstd ? 5 : packed.size() / 2;
        for (std::size_t i = at; i < at + 4; ++i) packed[i] ^= 0xff;
        auto back = decompress(packed);
        REQUIRE_FALSE(back);
        CHECK(back.err().code == errc::corrupt);
        CHECK(back.err().message.starts_with(std::string("input.bin: corrupt ") + codec_name(c) + " data: "));
        CHECK(back.err().message.find('\n') == std::string::npos);
        // Garbage after a complete stream is not ignored either.
        test::bytes trailing = compress(c, 1, data, 1 << 16);
        for (char g : std::string("garbage")) trailing.push_back(static_cast<std::uint8_t>(g));
        auto after = decompress(trailing);
        REQUIRE_FALSE(after);
        CHECK(after.err().code == errc::corrupt);
    }
}

TEST_CASE("errors of the sink and the source come back unchanged") {
    for (codec c : all_codecs) {
        CAPTURE(codec_name(c));
        int calls = 0;
        auto w = compressing_writer::open({c, 1}, "out.bin", [&](auto) -> result<void> {
            if (++calls == 2) return fail(errc::io_error, "out.bin: write failed: No space left on device");
            return {};
        });
        REQUIRE(w);
        result<void> status;
        const test::bytes noise = test::random_bytes(1 << 20, 5);
        for (int i = 0; i < 8 && status; ++i) status = w->write(noise);
        if (status) status = w->finish();
        REQUIRE_FALSE(status);
        CHECK(status.err().code == errc::io_error);
        CHECK(status.err().message == "out.bin: write failed: No space left on device");

        owned_source file(compress(c, 1, noise, 1 << 16), 100000);
        auto reader = decompressing_reader::open(file);
        REQUIRE(reader);
        auto back = read_all(*reader, 1 << 20);
        REQUIRE_FALSE(back);
        CHECK(back.err().code == errc::io_error);
        CHECK(back.err().message == "input.bin: read failed: Input/output error");
    }
}

TEST_CASE("zstd frames built by hand: raw and RLE blocks, skippable frames") {
    // Single-segment frames with a 1-byte content size, then one last block.
    const test::bytes raw = test::from_hex("28b52ffd 20 03 | 190000 616263");  // raw "abc"
    const test::bytes rle = test::from_hex("28b52ffd 20 05 | 2b0000 78");      // RLE "xxxxx"
    const test::bytes skip = test::from_hex("502a4d18 03000000 | 010203");     // skippable, 3 bytes
    test::bytes all = raw;                                                     // detection needs a frame first
    for (const auto* part : {&skip, &rle}) all.insert(all.end(), part->begin(), part->end());
    auto back = decompress(all, 2);
    REQUIRE(back);
    CHECK(*back == test::from_string("abcxxxxx"));
    // Cut anywhere inside the last frame: truncated, even where Boost sees a clean end.
    for (std::size_t cut = all.size() - rle.size() + 1; cut < all.size(); ++cut) {
        CAPTURE(cut);
        auto cut_back = decompress(test::bytes(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(cut)));
        REQUIRE_FALSE(cut_back);
        CHECK(cut_back.err().code == errc::input_ended);
    }
}

TEST_CASE("zstd streams other tools make: a skippable frame first, several frames") {
    // pzstd: before each frame, a skippable frame holding the frame's size.
    const test::bytes raw = test::from_hex("28b52ffd 20 03 | 190000 616263");  // raw "abc"
    const test::bytes rle = test::from_hex("28b52ffd 20 05 | 2b0000 78");      // RLE "xxxxx"
    const test::bytes skip = test::from_hex("502a4d18 04000000 | 0b000000");
    const test::bytes skip_other = test::from_hex("5f2a4d18 00000000");  // empty, last magic
    test::bytes all;
    for (const auto* part : {&skip, &raw, &skip_other, &skip, &rle}) all.insert(all.end(), part->begin(), part->end());
    for (std::size_t chunk : {1, 3, 1 << 16}) {
        CAPTURE(chunk);
        auto back = decompress(all, chunk);
        REQUIRE(back);
        CHECK(*back == test::from_string("abcxxxxx"));
    }
    // Every cut that is not between two frames is a truncation (from 4 bytes on:
    // fewer cannot be told from an uncompressed input).
    std::vector<std::size_t> boundaries{0};
    for (const auto* part : {&skip, &raw, &skip_other, &skip, &rle})
        boundaries.push_back(boundaries.back() + part->size());
    for (std::size_t cut = 4; cut < all.size(); ++cut) {
        CAPTURE(cut);
        auto cut_back = decompress(test::bytes(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(cut)));
        if (std::find(boundaries.begin(), boundaries.end(), cut) != boundaries.end()) {
            CHECK(cut_back);
        } else {
            REQUIRE_FALSE(cut_back);
            CHECK(cut_back.err().code == errc::input_ended);
        }
    }
    // Compressed by our writer, behind a skippable frame and followed by a second stream.
    const test::bytes data = sample(300000);
    test::bytes stream = skip;
    for (int i = 0; i < 2; ++i) {
        const test::bytes part = compress(codec::zstd, 3, data, 1 << 14);
        stream.insert(stream.end(), part.begin(), part.end());
    }
    auto back = decompress(stream, 4096);
    REQUIRE(back);
    test::bytes twice = data;
    twice.insert(twice.end(), data.begin(), data.end());
    CHECK(*back == twice);
}

TEST_CASE("options: level 0 is the codec's default; writer kind") {
    const test::bytes data = sample(50000);
    for (codec c : all_codecs) {
        CAPTURE(codec_name(c));
        CHECK(compress(c, 0, data, 4096) == compress(c, default_level(c), data, 4096));
        auto w = compressing_writer::open({c}, "out.bin", [](auto) -> result<void> { return {}; });
        REQUIRE(w);
        CHECK(w->kind() == c);
    }
}

TEST_CASE("a job driven into a writer's sink and out of an owning reader") {
    const test::bytes basis = sample(200000);
    for (codec c : {codec::none, codec::gzip, codec::bzip2, codec::zstd}) {
        CAPTURE(codec_name(c));
        test::bytes packed;
        auto w = compressing_writer::open({c, 0, 2}, "basis.sig", [&](std::span<const std::uint8_t> b) -> result<void> {
            packed.insert(packed.end(), b.begin(), b.end());
            return {};
        });
        REQUIRE(w);
        const byte_sink sink = w->sink();
        compressing_writer moved = std::move(*w);  // the sink follows the writer
        auto sig_job = make_signature_job(recommended_sig_params(basis.size()));
        owned_source basis_in(basis);
        REQUIRE(drive_job(*sig_job, basis_in, sink, {4096}));
        REQUIRE(moved.finish());
        CHECK(detect_codec(packed) == c);

        auto reader = decompressing_reader::open(std::make_unique<owned_source>(packed));
        REQUIRE(reader);
        CHECK(reader->kind() == c);
        signature sig;
        auto loader = make_loadsig_job(&sig, reader->name());
        REQUIRE(drive_job(*loader, *reader, {}));
        CHECK(sig.block_count() == (basis.size() + sig.params().block_len - 1) / sig.params().block_len);
    }
}
