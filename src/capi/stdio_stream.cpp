// stdio_stream.cpp - FILE* reads and writes with librsync's file-buffer messages
// (stdio_stream.hpp).
#include "stdio_stream.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rdelta::capi {

result<std::size_t> stdio_source::read_full(std::span<std::uint8_t> out) {
    // A stream already at its end is not read again (a terminal would wait).
    if (at_end()) return std::size_t{0};
    const size_t got = std::fread(out.data(), 1, std::min(out.size(), len_), f_);
    if (got == 0) {
        if (std::feof(f_)) return std::size_t{0};
        if (std::ferror(f_))
            log(RS_LOG_ERR, "rs_infilebuf_fill", "error filling buf from file: %s", std::strerror(errno));
        else
            log(RS_LOG_ERR, "rs_infilebuf_fill", "no error bit, but got %zu return when trying to read", got);
        return fail(errc::io_error, {});
    }
    *counted_ += static_cast<rs_long_t>(got);
    ++reads_;
    return got;
}

byte_sink stdio_sink(FILE* f, rs_long_t* counted) {
    return [f, counted](std::span<const std::uint8_t> bytes) -> result<void> {
        const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), f);
        if (written != bytes.size()) {
            log(RS_LOG_ERR, "rs_outfilebuf_drain", "error draining buf to file: %s", std::strerror(errno));
            return fail(errc::io_error, {});
        }
        *counted += static_cast<rs_long_t>(written);
        return {};
    };
}

}  // namespace rdelta::capi
