// rdelta/in_place.hpp - applying a delta to its basis file in place.
// Stability: stable.
#pragma once

#include <rdelta/error.hpp>
#include <rdelta/job.hpp>
#include <rdelta/patch.hpp>

#include <cstdint>
#include <span>

namespace rdelta {

/// A file that is both the basis and the output of an in-place patch.
class in_place_file {
public:
    virtual ~in_place_file() = default;
    /// Current size in bytes.
    virtual std::uint64_t size() const = 0;
    /// Read up to out.size() bytes at `pos`; the count, 0 at the end.
    virtual result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) = 0;
    /// Write all of `bytes` at `pos`.
    virtual result<void> write(std::uint64_t pos, std::span<const std::uint8_t> bytes) = 0;
    /// Set the size (the new file may be shorter or longer than the basis).
    virtual result<void> resize(std::uint64_t size) = 0;
    /// True when [pos, pos + len) is known to read as zeros without being stored
    /// (a hole): copying zeros onto a hole then writes nothing, and is not read.
    virtual bool is_hole(std::uint64_t /*pos*/, std::uint64_t /*len*/) { return false; }
};

/// Apply `delta` (held whole in memory) to `file` in place, writing only the regions
/// that change (COPY commands from a block to the same offset write nothing, nor do
/// zeros copied or written onto a hole).
/// Before the first write the whole delta is checked: it must be well formed, every
/// COPY must lie within the basis and must not read a region an earlier command
/// overwrote (or that its own write would overwrite first); otherwise nothing is
/// written and the result is param_error ("cannot be applied in place"; deltas made
/// with `rdelta delta --in-place-safe` always can) or the decoding error rdiff gives.
/// A checksum trailer is verified before writing, by reading what the output will be.
result<job_stats> patch_in_place(std::span<const std::uint8_t> delta, in_place_file& file,
                                 const patch_options& options = {});

}  // namespace rdelta
