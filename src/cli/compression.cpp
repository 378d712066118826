// compression.cpp - Boost.iostreams' gzip, bzip2 and zstd filters driven directly
// (no filtering_stream: a stream would turn errors into stream states and flush
// output from its destructor), with Boost's exceptions turned into error values.
//
// Boost calls our devices: a Sink forwarding compressed bytes to the byte_sink,
// and a Source replaying the magic bytes already read and then reading the file.
// When one of those fails, its error is kept and `passed_on` is thrown through
// Boost's code, to be turned back into that same error here.
#include "compression.hpp"

#include "zstd_writer.hpp"

#include "zstd_frames.hpp"

#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/zstd.hpp>

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <system_error>
#include <variant>

namespace rdelta::cli {

namespace io = boost::iostreams;

namespace {

// Each filter's own buffer: large enough that per-call costs vanish, small enough
// to stay in cache.
constexpr std::streamsize buffer_size = std::streamsize{64} << 10;

// Thrown through Boost's code when our sink or source failed; the error waits in
// the writer's or reader's state.
struct passed_on {};

struct codec_info {
    codec kind;
    const char* name;
    std::uint8_t magic[magic_size];
    std::size_t magic_len;
    int default_level, max_level;
};

constexpr codec_info codecs[] = {
    {codec::gzip, "gzip", {0x1f, 0x8b}, 2, 6, 9},
    {codec::bzip2, "bzip2", {'B', 'Z', 'h'}, 3, 9, 9},
    {codec::zstd, "zstd", {0x28, 0xb5, 0x2f, 0xfd}, 4, 3, 22},
};

const codec_info* info(codec c) noexcept {
    for (const auto& i : codecs)
        if (i.kind == c) return &i;
    return nullptr;
}

// ----- Boost's exceptions as error values ------------------------------------------

struct failure_detail {
    bool truncated = false;
    std::string text;
    bool out_of_memory = false;  // the codec could not allocate: a memory error, not bad data
};

failure_detail describe(const io::gzip_error& e) {
    const int code = e.error();
    if (code == io::gzip::bad_crc) return {false, "CRC mismatch"};
    if (code == io::gzip::bad_length) return {false, "length mismatch"};
    if (code == io::gzip::bad_header) return {false, "bad header"};
    if (code == io::gzip::bad_footer) return {true, "it ends before its trailer"};
    if (code == io::gzip::bad_method) return {false, "unknown compression method"};
    const int zlib = e.zlib_error_code();
    if (zlib == io::zlib::mem_error) return {false, "out of memory", true};
    if (zlib == io::zlib::buf_error) return {true, "it ends inside the compressed data"};
    if (zlib == io::zlib::data_error) return {false, "invalid deflate data"};
    return {false, "zlib error " + std::to_string(zlib)};
}

failure_detail describe(const io::bzip2_error& e) {
    const int code = e.error();
    if (code == io::bzip2::unexpected_eof) return {true, "it ends inside the compressed data"};
    if (code == io::bzip2::data_error) return {false, "invalid data (CRC or format)"};
    if (code == io::bzip2::data_error_magic) return {false, "bad magic"};
    if (code == io::bzip2::mem_error) return {false, "out of memory", true};
    return {false, "bzip2 error " + std::to_string(code)};
}

// zstd's own message, without the ": iostream error" the C++ library appends.
failure_detail describe(const io::zstd_error& e) {
    std::string text = e.what();
    if (const auto colon = text.rfind(": iostream error"); colon != std::string::npos) text.erase(colon);
    // ZSTD_error_memory_allocation; Boost keeps only the text.
    return {false, text, text.starts_with("Allocation error")};
}

enum class direction { compressing, decompressing };

const char* verb(direction d) { return d == direction::compressing ? "compressing" : "decompressing"; }

/// A codec's complaint: about the data when reading it; when writing, a failure of ours.
error codec_failure(codec c, const std::string& name, direction d, const failure_detail& f) {
    if (f.out_of_memory) return fail(errc::mem_error, name + ": out of memory " + verb(d) + " " + codec_name(c) + " data");
    if (d == direction::compressing)
        return fail(errc::internal_error, name + ": compressing " + codec_name(c) + " data failed: " + f.text);
    return fail(f.truncated ? errc::input_ended : errc::corrupt,
                name + ": " + (f.truncated ? "truncated " : "corrupt ") + codec_name(c) + " data: " + f.text);
}

/// Run `body`, turning what it throws into an error. `kept` holds our own device's
/// error when `passed_on` arrives.
template <class Body>
auto guarded(codec c, const std::string& name, std::optional<error>& kept, direction d, Body&& body)
    -> decltype(body()) {
    try {
        return body();
    } catch (const passed_on&) {
        return std::move(*kept);
    } catch (const std::bad_alloc&) {
        return fail(errc::mem_error, name + ": out of memory " + verb(d) + " " + codec_name(c) + " data");
    } catch (const io::gzip_error& e) {
        return codec_failure(c, name, d, describe(e));
    } catch (const io::bzip2_error& e) {
        return codec_failure(c, name, d, describe(e));
    } catch (const io::zstd_error& e) {
        return codec_failure(c, name, d, describe(e));
    } catch (const std::ios_base::failure& e) {  // a system_error too: not about threads
        return fail(errc::internal_error, name + ": " + verb(d) + " " + codec_name(c) + " data failed: " + e.what());
    } catch (const std::system_error& e) {  // a thread that could not be started
        return fail(errc::mem_error, name + ": out of memory " + verb(d) + " " + codec_name(c) + " data: " + e.what());
    } catch (const std::exception& e) {
        return fail(errc::internal_error, name + ": " + verb(d) + " " + codec_name(c) + " data failed: " + e.what());
    }
}

}  // namespace

const char* codec_name(codec c) noexcept {
    const codec_info* i = info(c);
    return i ? i->name : "none";
}

codec detect_codec(std::span<const std::uint8_t> head) noexcept {
    // A zstd stream may start with skippable frames (pzstd writes one before each
    // frame, holding its size): magic 0x184D2A50 to 0x184D2A5F, little-endian.
    if (head.size() >= 4 && (head[0] & 0xF0) == 0x50 && head[1] == 0x2A && head[2] == 0x4D && head[3] == 0x18)
        return codec::zstd;
    for (const auto& i : codecs)
        if (head.size() >= i.magic_len && std::memcmp(head.data(), i.magic, i.magic_len) == 0) return i.kind;
    return codec::none;
}

int default_level(codec c) noexcept {
    const codec_info* i = info(c);
    return i ? i->default_level : 0;
}

int max_level(codec c) noexcept {
    const codec_info* i = info(c);
    return i ? i->max_level : 0;
}

// ----- Writing ---------------------------------------------------------------------

using compressor = std::variant<io::gzip_compressor, io::bzip2_compressor>;

struct compressing_writer::state {
    // Boost's Sink model: takes every byte or throws.
    struct sink_device {
        using char_type = char;
        using category = io::sink_tag;
        state* s;
        std::streamsize write(const char* p, std::streamsize n) {
            if (n <= 0) return 0;
            auto sent = s->out({reinterpret_cast<const std::uint8_t*>(p), static_cast<std::size_t>(n)});
            if (!sent) {
                s->sink_error = std::move(sent).err();
                throw passed_on{};
            }
            return n;
        }
    };

    codec kind;
    std::string name;
    byte_sink out;
    std::optional<compressor> filter;  // gzip and bzip2
    std::optional<error> sink_error;
    std::unique_ptr<zstd_writer> zstd;  // libzstd, for frame checksums and worker threads
};

namespace {

std::optional<compressor> make_compressor(codec c, int level) {
    switch (c) {
    case codec::gzip: return io::gzip_compressor(io::gzip_params(level), buffer_size);
    case codec::bzip2: return io::bzip2_compressor(io::bzip2_params(level), buffer_size);
    case codec::zstd:  // zstd_writer
    case codec::none: break;
    }
    return std::nullopt;
}

}  // namespace

result<compressing_writer> compressing_writer::open(codec c, int level, std::string name, byte_sink out,
                                                    unsigned threads) {
    if (c != codec::none && (level < 1 || level > max_level(c)))
        return fail(errc::param_error, name + ": " + codec_name(c) + " level " + std::to_string(level) +
                                           " is out of range (1 to " + std::to_string(max_level(c)) + ")");
    auto s = std::make_unique<state>(state{c, std::move(name), std::move(out), {}, {}, {}});
    if (c == codec::zstd) {
        auto w = zstd_writer::open(level, threads, s->name, s->out);
        if (!w) return std::move(w).err();
        s->zstd = std::move(*w);
        return compressing_writer(std::move(s));
    }
    auto made = guarded(c, s->name, s->sink_error, direction::compressing, [&]() -> result<void> {
        s->filter = make_compressor(c, level);
        return {};
    });
    if (!made) return std::move(made).err();
    return compressing_writer(std::move(s));
}

compressing_writer::compressing_writer(std::unique_ptr<state> s) noexcept : s_(std::move(s)) {}
compressing_writer::compressing_writer(compressing_writer&&) noexcept = default;
compressing_writer::~compressing_writer() = default;

result<void> compressing_writer::write(std::span<const std::uint8_t> bytes) {
    if (s_->kind == codec::none) return s_->out(bytes);
    if (s_->zstd) return s_->zstd->write(bytes);
    return guarded(s_->kind, s_->name, s_->sink_error, direction::compressing, [&]() -> result<void> {
        state::sink_device sink{s_.get()};
        const char* p = reinterpret_cast<const char*>(bytes.data());
        auto left = static_cast<std::streamsize>(bytes.size());
        while (left > 0) {
            const std::streamsize taken = std::visit([&](auto& f) { return f.write(sink, p, left); }, *s_->filter);
            if (taken <= 0) return fail(errc::internal_error, s_->name + ": the compressor took no input");
            p += taken, left -= taken;
        }
        return {};
    });
}

result<void> compressing_writer::finish() {
    if (s_->kind == codec::none) return {};
    if (s_->zstd) return s_->zstd->finish();
    return guarded(s_->kind, s_->name, s_->sink_error, direction::compressing, [&]() -> result<void> {
        state::sink_device sink{s_.get()};
        std::visit([&](auto& f) { f.close(sink, std::ios_base::out); }, *s_->filter);
        return {};
    });
}

// ----- Reading ---------------------------------------------------------------------

using decompressor = std::variant<io::gzip_decompressor, io::bzip2_decompressor, io::zstd_decompressor>;

struct decompressing_reader::state {
    // Boost's Source model: -1 at the end, never 0 (that would mean "would block").
    struct source_device {
        using char_type = char;
        using category = io::source_tag;
        state* s;
        std::streamsize read(char* p, std::streamsize n) {
            auto got = s->read_raw(reinterpret_cast<std::uint8_t*>(p), static_cast<std::size_t>(n));
            if (!got) {
                s->source_error = std::move(got).err();
                throw passed_on{};
            }
            if (*got == 0) return -1;
            if (s->kind == codec::zstd) s->frames.feed(reinterpret_cast<const std::uint8_t*>(p), *got);
            return static_cast<std::streamsize>(*got);
        }
    };

    /// The file's bytes as they are: the magic bytes already read, then the rest.
    result<std::size_t> read_raw(std::uint8_t* p, std::size_t n) {
        const std::size_t replayed = std::min(n, head_size - head_used);
        std::memcpy(p, head + head_used, replayed);
        head_used += replayed;
        if (replayed == n) return n;
        auto got = file->read_full(p + replayed, n - replayed);
        if (!got) return got;
        return replayed + *got;
    }

    result<std::size_t> decompress(std::uint8_t* p, std::size_t n);

    byte_source* file;
    codec kind = codec::none;
    std::uint8_t head[magic_size] = {};
    std::size_t head_size = 0, head_used = 0;
    std::optional<decompressor> filter;  // none for codec::none
    zstd_frame_tracker frames;
    std::optional<error> source_error;
    bool ended = false;
};

namespace {

std::optional<decompressor> make_decompressor(codec c) {
    switch (c) {
    case codec::gzip: return io::gzip_decompressor(io::gzip::default_window_bits, buffer_size);
    case codec::bzip2: return io::bzip2_decompressor(false, buffer_size);
    case codec::zstd: return io::zstd_decompressor(buffer_size);
    case codec::none: break;
    }
    return std::nullopt;
}

}  // namespace

result<std::size_t> decompressing_reader::state::decompress(std::uint8_t* p, std::size_t n) {
    source_device source{this};
    std::size_t got = 0;
    while (got < n && !ended) {
        char* to = reinterpret_cast<char*>(p + got);
        const auto want = static_cast<std::streamsize>(n - got);
        const std::streamsize r = std::visit([&](auto& f) { return f.read(source, to, want); }, *filter);
        if (r == 0) return fail(errc::internal_error, file->name() + ": the decompressor made no progress");
        if (r < 0) ended = true;
        else got += static_cast<std::size_t>(r);
    }
    // Boost's zstd filter takes the end of its input for the end of the data.
    if (ended && kind == codec::zstd && !frames.complete())
        return codec_failure(kind, file->name(), direction::decompressing, {true, "it ends inside a frame"});
    return got;
}

result<decompressing_reader> decompressing_reader::open(byte_source& file) {
    auto s = std::make_unique<state>();
    s->file = &file;
    auto got = file.read_full(s->head, magic_size);
    if (!got) return std::move(got).err();
    s->head_size = *got;
    s->kind = detect_codec({s->head, s->head_size});
    auto made = guarded(s->kind, file.name(), s->source_error, direction::decompressing, [&]() -> result<void> {
        s->filter = make_decompressor(s->kind);
        return {};
    });
    if (!made) return std::move(made).err();
    return decompressing_reader(std::move(s));
}

decompressing_reader::decompressing_reader(std::unique_ptr<state> s) noexcept : s_(std::move(s)) {}
decompressing_reader::decompressing_reader(decompressing_reader&&) noexcept = default;
decompressing_reader::~decompressing_reader() = default;

codec decompressing_reader::kind() const noexcept { return s_->kind; }

std::int64_t decompressing_reader::size_hint() const noexcept {
    return s_->kind == codec::none ? s_->file->size_hint() : -1;
}

const std::string& decompressing_reader::name() const noexcept { return s_->file->name(); }

result<std::size_t> decompressing_reader::read_full(std::uint8_t* p, std::size_t n) {
    if (s_->kind == codec::none) return s_->read_raw(p, n);
    return guarded(s_->kind, name(), s_->source_error, direction::decompressing, [&] { return s_->decompress(p, n); });
}

}  // namespace rdelta::cli
