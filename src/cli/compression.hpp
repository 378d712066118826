// compression.hpp - gzip, bzip2 and zstd streams around the CLI's signature and
// delta files.
//
// Outputs are compressed only when asked (-z, -i, --zstd). Inputs are recognised by
// their first bytes, whatever the options: a librsync signature or delta starts with
// 0x72 0x73 ("rs"), which no compressed format does, so detection cannot mistake one
// for the other. Boost.iostreams' filters do the (de)compression and report failures
// by throwing; this is the edge where those become error values.
#pragma once

#include <rdelta/io.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace rdelta::cli {

enum class codec { none, gzip, bzip2, zstd };

/// "gzip", "bzip2" or "zstd" ("none" for none), for messages.
const char* codec_name(codec c) noexcept;

/// Bytes that identify every codec: gzip 1f 8b, bzip2 "BZh", zstd 28 b5 2f fd or
/// a zstd skippable frame (5X 2a 4d 18, as pzstd's output starts).
inline constexpr std::size_t magic_size = 4;

/// The codec whose magic starts `head`, a stream's first bytes (fewer than
/// magic_size when the stream is that short); codec::none when none matches.
codec detect_codec(std::span<const std::uint8_t> head) noexcept;

/// Levels accepted for a codec: 1 to max_level(); default_level() when none is given
/// (those of the gzip, bzip2 and zstd tools: 6, 9 and 3).
int default_level(codec c) noexcept;
int max_level(codec c) noexcept;

/// Compresses a stream and hands the compressed bytes, in order, to a sink.
/// codec::none hands the bytes over unchanged, so a command can always write
/// through a writer. Memory is bounded: a few buffers, whatever the stream size.
class compressing_writer {
public:
    /// `name` is the output's, for messages; `out` receives the compressed bytes;
    /// `threads` is zstd's worker count (0 = all cores; the output does not depend on it).
    static result<compressing_writer> open(codec c, int level, std::string name, byte_sink out, unsigned threads = 0);
    compressing_writer(compressing_writer&&) noexcept;
    ~compressing_writer();

    /// Compress more bytes. An error from the sink comes back unchanged.
    result<void> write(std::span<const std::uint8_t> bytes);
    /// End the stream: flush what the compressor holds and write its trailer.
    /// Call once, after the last write. A writer dropped without finish() writes nothing more.
    result<void> finish();

private:
    struct state;
    explicit compressing_writer(std::unique_ptr<state> s) noexcept;
    std::unique_ptr<state> s_;
};

/// Reads an input that may be compressed: its first bytes choose the codec, and
/// reads return the decompressed bytes (or the input's own bytes when it is not
/// compressed). Corrupt data fails with errc::corrupt, and data that stops before
/// the end of the compressed stream with errc::input_ended, naming the input.
class decompressing_reader final : public byte_source {
public:
    /// Read the first bytes of `file`, which must outlive the reader.
    static result<decompressing_reader> open(byte_source& file);
    decompressing_reader(decompressing_reader&&) noexcept;
    ~decompressing_reader() override;

    codec kind() const noexcept;
    result<std::size_t> read_full(std::uint8_t* p, std::size_t n) override;
    /// The file's size when it is not compressed; -1 (unknown) when it is.
    std::int64_t size_hint() const noexcept override;
    const std::string& name() const noexcept override;

private:
    struct state;
    explicit decompressing_reader(std::unique_ptr<state> s) noexcept;
    std::unique_ptr<state> s_;
};

}  // namespace rdelta::cli
