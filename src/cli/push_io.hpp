// push_io.hpp - the descriptor chores of push: temporary files for what a child
// writes, and copying a child's output into ssh, compressed on the way.
#pragma once

#include "core/posix_io.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdelta::cli {

/// An unlinked temporary file (a fetched signature, a child's stderr), never
/// inherited by the other children: a stray copy of a pipe's end would keep ssh
/// from seeing the delta's end. Holds -1 when none can be made.
posix_io::unique_fd temp_file();

/// All of the file open as `fd`, from its start.
std::string read_all(int fd);

/// How a copy into ssh ended.
struct copy_outcome {
    bool to_refused = false;      ///< `to` refused bytes: ssh is gone
    std::optional<error> failed;  ///< the compressor failed (out of memory, say)
    bool ok() const noexcept { return !to_refused && !failed; }
};

/// Copy `from` to `to` until `from` ends, compressed as `compression` says
/// (codec::none: unchanged), adding the bytes written to `to` to `counted` and
/// keeping the last bytes read from `from` in `tail`: the delta's trailer, which
/// only the uncompressed stream shows.
copy_outcome copy_stream(int from, int to, const compression_options& compression, std::uint64_t& counted,
                         std::vector<std::uint8_t>* tail = nullptr);

}  // namespace rdelta::cli
