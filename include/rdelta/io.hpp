// rdelta/io.hpp - sequential byte sources and sinks that jobs are driven between:
// a file, standard input or output, or a (de)compressor in front of one.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/error.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace rdelta {

/// A sequential input: a file, standard input, or a decompressor reading one.
class byte_source {
public:
    virtual ~byte_source() = default;
    /// Read until `n` bytes or the end; returns the count (less than `n` only at the end).
    virtual result<std::size_t> read_full(std::uint8_t* p, std::size_t n) = 0;
    /// How many bytes the source will deliver, when known in advance; -1 otherwise.
    virtual std::int64_t size_hint() const noexcept = 0;
    /// The name errors give the input ("delta.bin", "standard input").
    virtual const std::string& name() const noexcept = 0;
};

/// Receives output bytes in order; an error stops the command.
using byte_sink = std::function<result<void>(std::span<const std::uint8_t>)>;

}  // namespace rdelta
