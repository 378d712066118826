// increment_map.hpp - where each byte of an image at a restore point comes from:
// the image as it is now, a point file's saved bytes, or zeros (a hole). Undoing
// patches one after another over it, newest first, is how a point is restored
// without writing anything, and how two increments are merged into one.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace rdelta::detail {

/// A run of bytes [from, to) and where they come from: source `image` at the same
/// offsets, `zeros`, or point file number `source` (>= 0) at offset `at`.
struct piece {
    static constexpr int image = -1, zeros = -2;
    std::uint64_t from = 0, to = 0;
    int source = image;
    std::uint64_t at = 0;
};

class increment_map {
public:
    /// `length` bytes, all from the image as it is now.
    explicit increment_map(std::uint64_t length);
    std::uint64_t length() const noexcept { return length_; }
    /// Cut or extend to `length` (what a rollback does first): new bytes are zeros.
    void resize(std::uint64_t length);
    /// [from, from + len) now comes from `source` at `at` (later calls win).
    void put(std::uint64_t from, std::uint64_t len, int source, std::uint64_t at);
    /// The pieces in order, covering [0, length()).
    std::vector<piece> pieces() const;

private:
    // Keyed by `from`; the pieces tile [0, length_).
    std::map<std::uint64_t, piece> map_;
    std::uint64_t length_;
    void split_at(std::uint64_t pos);
};

}  // namespace rdelta::detail
