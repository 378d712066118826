// decompressing_reader.cpp - a byte_source that decompresses what it reads
// (rdelta/compression.hpp), through Boost.iostreams' gzip, bzip2 and zstd filters
// driven directly, with a Source device that replays the magic bytes already read
// and then reads the input.
#include <rdelta/compression.hpp>

#include "codec_errors.hpp"
#include "zstd_frames.hpp"

#include <boost/iostreams/concepts.hpp>
#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/zstd.hpp>

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <variant>

namespace rdelta {

namespace io = boost::iostreams;
using detail::direction;

namespace {

// Each filter's own buffer, as the writer's.
constexpr std::streamsize reader_buffer_size = std::streamsize{64} << 10;

using decompressor = std::variant<io::gzip_decompressor, io::bzip2_decompressor, io::zstd_decompressor>;

// none reads the input as it is.
std::optional<decompressor> make_decompressor(codec c) {
    if (c == codec::gzip) return io::gzip_decompressor(io::gzip::default_window_bits, reader_buffer_size);
    if (c == codec::bzip2) return io::bzip2_decompressor(false, reader_buffer_size);
    if (c == codec::zstd) return io::zstd_decompressor(reader_buffer_size);
    return std::nullopt;
}

}  // namespace

// Hidden: nested in an exported class, it would be exported with it (src/librdelta.map).
struct __attribute__((visibility("hidden"))) decompressing_reader::state {
    // Boost's Source model: -1 at the end, never 0 (that would mean "would block").
    struct source_device : io::source {
        explicit source_device(state* owner) : s(owner) {}
        state* s;
        std::streamsize read(char* p, std::streamsize n) {
            const std::size_t got = detail::value_or_pass_on(
                s->read_raw(reinterpret_cast<std::uint8_t*>(p), static_cast<std::size_t>(n)), s->source_error);
            if (got == 0) return -1;
            if (s->kind == codec::zstd) s->frames.feed(reinterpret_cast<const std::uint8_t*>(p), got);
            return static_cast<std::streamsize>(got);
        }
    };

    /// The input's bytes as they are: the magic bytes already read, then the rest.
    result<std::size_t> read_raw(std::uint8_t* p, std::size_t n) {
        const std::size_t replayed = std::min(n, head_size - head_used);
        std::memcpy(p, head + head_used, replayed);
        head_used += replayed;
        if (replayed == n) return n;
        auto got = file->read_full({p + replayed, n - replayed});
        if (!got) return got;
        return replayed + *got;
    }

    result<std::size_t> decompress(std::uint8_t* p, std::size_t n);

    result<void> start() {
        auto got = file->read_full({head, codec_magic_size});
        if (!got) return std::move(got).err();
        head_size = *got;
        kind = detect_codec({head, head_size});
        return detail::codec_guarded(kind, file->name(), source_error, direction::decompressing, [&]() -> result<void> {
            filter = make_decompressor(kind);
            return {};
        });
    }

    std::unique_ptr<byte_source> owned;  // when the reader owns its input
    byte_source* file = nullptr;
    codec kind = codec::none;
    std::uint8_t head[codec_magic_size] = {};
    std::size_t head_size = 0, head_used = 0;
    std::optional<decompressor> filter;  // none for codec::none
    detail::zstd_frame_tracker frames;
    std::optional<error> source_error;
    bool ended = false;
};

result<std::size_t> decompressing_reader::state::decompress(std::uint8_t* p, std::size_t n) {
    source_device source{this};
    std::size_t got = 0;
    while (got < n && !ended) {
        char* to = reinterpret_cast<char*>(p + got);
        const auto want = static_cast<std::streamsize>(n - got);
        const std::streamsize r = std::visit([&](auto& f) { return f.read(source, to, want); }, *filter);
        if (r == 0) return fail(errc::internal_error, file->name() + ": the decompressor made no progress");
        if (r < 0)
            ended = true;
        else
            got += static_cast<std::size_t>(r);
    }
    // Boost's zstd filter takes the end of its input for the end of the data.
    if (ended && kind == codec::zstd && !frames.complete())
        return detail::codec_failure(kind, file->name(), direction::decompressing, {true, "it ends inside a frame"});
    return got;
}

result<decompressing_reader> decompressing_reader::open(byte_source& in) {
    std::unique_ptr<state> s(new (std::nothrow) state);
    if (!s) return fail(errc::mem_error, "out of memory");
    s->file = &in;
    if (auto started = s->start(); !started) return std::move(started).err();
    return decompressing_reader(std::move(s));
}

result<decompressing_reader> decompressing_reader::open(std::unique_ptr<byte_source> in) {
    auto reader = open(*in);
    if (reader) reader->s_->owned = std::move(in);
    return reader;
}

decompressing_reader::decompressing_reader(std::unique_ptr<state> s) noexcept : s_(std::move(s)) {}
decompressing_reader::decompressing_reader(decompressing_reader&&) noexcept = default;
decompressing_reader& decompressing_reader::operator=(decompressing_reader&&) noexcept = default;
decompressing_reader::~decompressing_reader() = default;

codec decompressing_reader::kind() const noexcept {
    return s_->kind;
}

std::optional<std::uint64_t> decompressing_reader::size() const noexcept {
    if (s_->kind != codec::none) return std::nullopt;
    return s_->file->size();
}

const std::string& decompressing_reader::name() const noexcept {
    return s_->file->name();
}

result<std::size_t> decompressing_reader::read_full(std::span<std::uint8_t> out) {
    if (s_->kind == codec::none) return s_->read_raw(out.data(), out.size());
    return detail::codec_guarded(s_->kind, name(), s_->source_error, direction::decompressing,
                                 [&] { return s_->decompress(out.data(), out.size()); });
}

}  // namespace rdelta
