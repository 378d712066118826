// compressing_writer.cpp - compression in front of a byte_sink
// (rdelta/compression.hpp). gzip and bzip2 go through Boost.iostreams' filters,
// driven directly (no filtering_stream: a stream would turn errors into stream
// states and flush output from its destructor); zstd goes through libzstd itself
// (zstd_writer), for frame checksums and worker threads.
#include <rdelta/compression.hpp>

#include "codec_errors.hpp"
#include "zstd_writer.hpp"

#include <boost/iostreams/concepts.hpp>
#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>

#include <new>
#include <optional>
#include <variant>

namespace rdelta {

namespace io = boost::iostreams;
using detail::direction;

namespace {

// Each filter's own buffer: large enough that per-call costs vanish, small enough
// to stay in cache.
constexpr std::streamsize writer_buffer_size = std::streamsize{64} << 10;

using compressor = std::variant<io::gzip_compressor, io::bzip2_compressor>;

// zstd goes to zstd_writer instead, and none to the sink as it is.
std::optional<compressor> make_compressor(codec c, int level) {
    if (c == codec::gzip) return io::gzip_compressor(io::gzip_params(level), writer_buffer_size);
    if (c == codec::bzip2) return io::bzip2_compressor(io::bzip2_params(level), writer_buffer_size);
    return std::nullopt;
}

}  // namespace

// Hidden: nested in an exported class, it would be exported with it (src/librdelta.map).
struct __attribute__((visibility("hidden"))) compressing_writer::state {
    // Boost's Sink model: takes every byte or throws.
    struct sink_device : io::sink {
        explicit sink_device(state* owner) : s(owner) {}
        state* s;
        std::streamsize write(const char* p, std::streamsize n) {
            if (n <= 0) return 0;
            detail::value_or_pass_on(s->out({reinterpret_cast<const std::uint8_t*>(p), static_cast<std::size_t>(n)}),
                                     s->sink_error);
            return n;
        }
    };

    result<void> write(std::span<const std::uint8_t> bytes);

    template <class Body>
    auto guarded(Body&& body) noexcept {
        return detail::codec_guarded(kind, name, sink_error, direction::compressing, body);
    }

    codec kind = codec::none;
    std::string name;
    byte_sink out;
    std::optional<compressor> filter;  // gzip and bzip2
    std::optional<error> sink_error;
    std::unique_ptr<detail::zstd_writer> zstd;
};

result<compressing_writer> compressing_writer::open(const compression_options& options, std::string name,
                                                    byte_sink out) {
    std::unique_ptr<state> s(new (std::nothrow) state);
    if (!s) return fail(errc::mem_error, "out of memory");
    s->kind = options.kind, s->name = std::move(name), s->out = std::move(out);
    auto made = s->guarded([&]() -> result<void> {
        const codec c = s->kind;
        const int level = options.level == 0 ? default_level(c) : options.level;
        if (c != codec::none && (level < 1 || level > max_level(c)))
            return fail(errc::param_error, s->name + ": " + codec_name(c) + " level " + std::to_string(level) +
                                               " is out of range (1 to " + std::to_string(max_level(c)) + ")");
        if (c != codec::zstd) {
            s->filter = make_compressor(c, level);
            return {};
        }
        auto w = detail::zstd_writer::open(level, options.threads, s->name, s->out);
        if (!w) return std::move(w).err();
        s->zstd = std::move(*w);
        return {};
    });
    if (!made) return std::move(made).err();
    return compressing_writer(std::move(s));
}

compressing_writer::compressing_writer(std::unique_ptr<state> s) noexcept : s_(std::move(s)) {}
compressing_writer::compressing_writer(compressing_writer&&) noexcept = default;
compressing_writer& compressing_writer::operator=(compressing_writer&&) noexcept = default;
compressing_writer::~compressing_writer() = default;

codec compressing_writer::kind() const noexcept {
    return s_->kind;
}

byte_sink compressing_writer::sink() {
    return [s = s_.get()](std::span<const std::uint8_t> bytes) { return s->write(bytes); };
}

result<void> compressing_writer::write(std::span<const std::uint8_t> bytes) {
    return s_->write(bytes);
}

result<void> compressing_writer::state::write(std::span<const std::uint8_t> bytes) {
    if (kind == codec::none) return out(bytes);
    if (zstd) return zstd->write(bytes);
    return guarded([&]() -> result<void> {
        sink_device sink{this};
        const char* p = reinterpret_cast<const char*>(bytes.data());
        auto left = static_cast<std::streamsize>(bytes.size());
        while (left > 0) {
            const std::streamsize taken = std::visit([&](auto& f) { return f.write(sink, p, left); }, *filter);
            if (taken <= 0) return fail(errc::internal_error, name + ": the compressor took no input");
            p += taken, left -= taken;
        }
        return {};
    });
}

result<void> compressing_writer::finish() {
    if (s_->kind == codec::none) return {};
    if (s_->zstd) return s_->zstd->finish();
    return s_->guarded([&]() -> result<void> {
        state::sink_device sink{s_.get()};
        std::visit([&](auto& f) { f.close(sink, std::ios_base::out); }, *s_->filter);
        return {};
    });
}

}  // namespace rdelta
