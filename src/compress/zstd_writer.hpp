// zstd_writer.hpp - zstd compression through libzstd's streaming API, so frames
// carry a content checksum (zstd -t verifies it) and worker threads compress
// large outputs in parallel; Boost's zstd filter can do neither.
#pragma once

#include <rdelta/io.hpp>

#include <memory>
#include <span>
#include <string>

namespace rdelta::detail {

/// Compresses a stream into one zstd frame with a content checksum and hands the
/// compressed bytes to a sink. Always compresses with at least one worker thread,
/// so the output is the same whatever `threads` is.
class zstd_writer {
public:
    /// `level` 1-22; `threads` worker threads (0 = all cores); `name` for messages.
    static result<std::unique_ptr<zstd_writer>> open(int level, unsigned threads, std::string name, byte_sink out);
    ~zstd_writer();
    result<void> write(std::span<const std::uint8_t> bytes);
    /// End the frame (its checksum is written); call once after the last write.
    result<void> finish();

private:
    zstd_writer() = default;
    result<void> pump(std::span<const std::uint8_t> bytes, bool end);
    struct context;
    std::unique_ptr<context> ctx_;
    std::string name_;
    byte_sink out_;
};

}  // namespace rdelta::detail
