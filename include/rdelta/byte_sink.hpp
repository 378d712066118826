// rdelta/byte_sink.hpp - the one type every producer of bytes writes to: signature,
// delta and patch output, a file being published, a compressor, a pipe.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/error.hpp>

#include <cstdint>
#include <functional>
#include <span>

namespace rdelta {

/// Receives bytes in order; an error it returns stops the producer and comes back
/// to its caller unchanged (a full disk, or the caller's own "cancelled").
using byte_sink = std::function<result<void>(std::span<const std::uint8_t>)>;

}  // namespace rdelta
