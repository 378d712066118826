// rdelta/compression.hpp - gzip, bzip2 and zstd streams around signatures and
// deltas: a compressor in front of a byte_sink, and a decompressor behind a
// byte_source that recognises the format by its first bytes.
//
// Compressed inputs are recognised whatever the caller expects: a librsync
// signature or delta starts with 0x72 0x73 ("rs"), which no compressed format
// does, so detection cannot mistake one for the other. The tool's -z, -i and
// --zstd options and its reading of compressed inputs are these calls.
// Nothing here throws: failures of the codecs (corrupt or truncated data, out of
// memory) come back as error values with a one-line message naming the stream.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>
#include <rdelta/io.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace rdelta {

/// A compression format. The streams are those of the gzip, bzip2 and zstd tools.
enum class codec {
    none,   ///< no compression: bytes pass through unchanged
    gzip,   ///< RFC 1952 (zlib)
    bzip2,  ///< bzip2
    zstd,   ///< RFC 8878; written with a content checksum, read with several frames and pzstd's skippable frames
};

/// "gzip", "bzip2" or "zstd" ("none" for none), for messages.
RDELTA_API const char* codec_name(codec c) noexcept;

/// How many first bytes identify every codec: gzip 1f 8b, bzip2 "BZh", zstd
/// 28 b5 2f fd or a zstd skippable frame (5X 2a 4d 18, as pzstd's output starts).
inline constexpr std::size_t codec_magic_size = 4;

/// The codec whose magic starts `head`, a stream's first bytes (fewer than
/// codec_magic_size when the stream is that short); codec::none when none matches.
RDELTA_API codec detect_codec(std::span<const std::uint8_t> head) noexcept;

/// The levels a codec accepts, 1 to max_level() (gzip 9, bzip2 9, zstd 22), and
/// the level used when none is given: the tools' own defaults (6, 9 and 3).
/// 0 for codec::none.
RDELTA_API int default_level(codec c) noexcept;
RDELTA_API int max_level(codec c) noexcept;

/// How compressing_writer::open() compresses.
struct RDELTA_API compression_options {
    codec kind = codec::none;
    /// 1 to max_level(kind); 0 means default_level(kind). zstd levels above 19 use
    /// much more memory (the zstd tool wants --ultra for them).
    int level = 0;
    /// zstd's worker threads; 0 = one per core. The output is the same whatever
    /// the count. gzip and bzip2 compress in the calling thread.
    unsigned threads = 0;
};

/// Compresses a stream and hands the compressed bytes, in order, to a sink.
/// codec::none hands the bytes over unchanged, so a program can always write
/// through a writer. Memory is bounded: a few buffers, whatever the stream size.
class RDELTA_API compressing_writer {
public:
    /// A writer for `options`; `out` receives the compressed bytes, `name` (the
    /// output's) starts error messages. A level out of range is param_error.
    static result<compressing_writer> open(const compression_options& options, std::string name, byte_sink out);
    compressing_writer(compressing_writer&&) noexcept;
    compressing_writer& operator=(compressing_writer&&) noexcept;
    ~compressing_writer();

    /// Compress more bytes. An error of the sink comes back unchanged.
    result<void> write(std::span<const std::uint8_t> bytes);
    /// End the stream: flush what the compressor holds and write its trailer.
    /// Call once, after the last write. A writer dropped without finish() writes
    /// nothing more, and what it wrote is not a complete stream.
    result<void> finish();
    /// A byte_sink that calls write(), for drive_job() and the other producers;
    /// valid while this writer (or the one it is moved into) lives.
    byte_sink sink();
    codec kind() const noexcept;

private:
    struct state;
    explicit compressing_writer(std::unique_ptr<state> s) noexcept;
    std::unique_ptr<state> s_;
};

/// Reads an input that may be compressed: its first bytes choose the codec, and
/// reads return the decompressed bytes (or the input's own bytes when it is not
/// compressed). Corrupt data fails with errc::corrupt, data that stops before the
/// end of the compressed stream with errc::input_ended, naming the input. Several
/// streams one after the other read as their concatenation (as gzip -d does).
class RDELTA_API decompressing_reader final : public byte_source {
public:
    /// Read the first bytes of `in`, which must outlive the reader.
    static result<decompressing_reader> open(byte_source& in);
    /// The same, owning `in` (for a delta_opener, say).
    static result<decompressing_reader> open(std::unique_ptr<byte_source> in);
    decompressing_reader(decompressing_reader&&) noexcept;
    decompressing_reader& operator=(decompressing_reader&&) noexcept;
    ~decompressing_reader() override;

    /// The codec the first bytes named (codec::none: read unchanged).
    codec kind() const noexcept;
    result<std::size_t> read_full(std::span<std::uint8_t> out) override;
    /// The input's size when it is not compressed; none (unknown) when it is.
    std::optional<std::uint64_t> size() const noexcept override;
    /// The input's name.
    const std::string& name() const noexcept override;

private:
    struct state;
    explicit decompressing_reader(std::unique_ptr<state> s) noexcept;
    std::unique_ptr<state> s_;
};

}  // namespace rdelta
