// memory_bytes.cpp - bytes in memory read at random (memory_basis) or in order (memory_source).
#include <rdelta/basis_reader.hpp>
#include <rdelta/io.hpp>

#include <algorithm>
#include <cstring>

namespace rdelta {

result<std::size_t> memory_basis::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    if (pos >= bytes_.size()) return std::size_t{0};
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), bytes_.size() - pos));
    std::memcpy(out.data(), bytes_.data() + pos, n);
    return n;
}

result<std::size_t> memory_source::read_full(std::span<std::uint8_t> out) {
    const std::size_t n = std::min(out.size(), bytes_.size() - at_);
    if (n) std::memcpy(out.data(), bytes_.data() + at_, n);
    at_ += n;
    return n;
}

}  // namespace rdelta
