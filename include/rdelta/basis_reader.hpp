// rdelta/basis_reader.hpp - random access to a file's bytes: the basis COPY commands
// read from, a new file a delta reads in slices, an output read back to be verified.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace rdelta {

/// Random-access reader of a file's bytes.
class RDELTA_API basis_reader {
public:
    virtual ~basis_reader() = default;
    /// Read up to out.size() bytes at `pos`; return the count, 0 at or past the end.
    virtual result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) = 0;
    /// The size when known (used in error messages only).
    virtual std::optional<std::uint64_t> size() const { return std::nullopt; }
    /// True when [pos, pos + len) is known to read as zeros without being stored
    /// (a hole of a sparse file), so it need not be read. May be called from
    /// several threads at once, like read().
    virtual bool is_hole(std::uint64_t /*pos*/, std::uint64_t /*len*/) { return false; }
};

/// Bytes held in memory.
class RDELTA_API memory_basis final : public basis_reader {
public:
    explicit memory_basis(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override;
    std::optional<std::uint64_t> size() const override { return bytes_.size(); }

private:
    std::span<const std::uint8_t> bytes_;
};

}  // namespace rdelta
