// run_to_memory.hpp - a job run over a whole buffer, its output collected: what
// each operation's one-shot call (make_signature(), make_delta(), apply_patch())
// is made of, beside the operation.
#pragma once

#include <rdelta/job.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace rdelta::detail {

/// Feed `input` in chunks of `chunk` bytes (all at once when 0) and collect the
/// output, with room for `expected` bytes reserved when that much memory is free.
result<std::vector<std::uint8_t>> run_to_memory(job& j, std::span<const std::uint8_t> input, std::size_t chunk = 0,
                                                std::size_t expected = 0);

}  // namespace rdelta::detail
