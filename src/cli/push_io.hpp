// push_io.hpp - the descriptor chores of push: temporary files for what a child
// writes, and copying a child's output into ssh.
#pragma once

#include "fd_holder.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rdelta::cli {

/// An unlinked temporary file (a fetched signature, a child's stderr), never
/// inherited by the other children: a stray copy of a pipe's end would keep ssh
/// from seeing the delta's end. -1 when none can be made.
fd_holder temp_file();

/// All of the file open as `fd`, from its start.
std::string read_all(int fd);

/// Write all `n` bytes; false when `fd` refused them.
bool write_all(int fd, const std::uint8_t* p, std::size_t n);

/// Copy `from` to `to` until `from` ends, adding the bytes to `counted` and keeping
/// the last bytes in `tail` (a delta's trailer); false when `to` refused (ssh is gone).
bool copy_stream(int from, int to, std::uint64_t& counted, std::vector<std::uint8_t>* tail = nullptr);

}  // namespace rdelta::cli
