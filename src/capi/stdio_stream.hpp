// stdio_stream.hpp - a FILE* as the byte_source and byte_sink of the whole-file
// calls (rs_sig_file and the others), reading and writing as librsync's file
// buffers do (rs_infilebuf_fill, rs_outfilebuf_drain in librsync's buf.c): the
// same fread/fwrite calls, the same log lines on failure, and the byte counts
// rdiff -s prints.
#pragma once

#include "capi.hpp"

#include <rdelta/io.hpp>

#include <cstdio>
#include <string>

namespace rdelta::capi {

/// Reads a FILE* for drive_job() with drive_options::end_on_empty_read: each read
/// is one fread() of at most the buffer length librsync would use, and the end is
/// known from feof(), as rs_infilebuf_fill knows it. Errors are logged here and
/// come back as io_error with no message.
class stdio_source final : public byte_source {
public:
    /// `buffer_len` librsync's input buffer size (0 is possible: every read then
    /// fails, as librsync's does); `counted` receives the bytes read (in_bytes).
    stdio_source(FILE* f, std::size_t buffer_len, rs_long_t* counted) noexcept
        : f_(f), len_(buffer_len), counted_(counted) {}
    result<std::size_t> read_full(std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> size() const noexcept override { return std::nullopt; }
    const std::string& name() const noexcept override { return name_; }
    /// How many reads have returned bytes so far.
    std::uint64_t reads() const noexcept { return reads_; }
    /// Whether a read has met the end of the file (feof()): librsync's next refill
    /// flags the end of input, even while input is left in its buffer.
    bool at_end() const noexcept { return !f_ || std::feof(f_); }

private:
    FILE* f_;
    std::size_t len_;
    rs_long_t* counted_;
    std::uint64_t reads_ = 0;
    std::string name_ = "file";
};

/// Writes to a FILE* with one fwrite() per piece, as rs_outfilebuf_drain; a short
/// write is logged and fails with io_error (no message). `counted` receives the
/// bytes written (out_bytes).
byte_sink stdio_sink(FILE* f, rs_long_t* counted);

}  // namespace rdelta::capi
