// memory_basis.cpp - a basis_reader over bytes in memory.
#include <rdelta/basis_reader.hpp>

#include <algorithm>
#include <cstring>

namespace rdelta {

result<std::size_t> memory_basis::read(std::uint64_t pos, std::span<std::uint8_t> out) {
    if (pos >= bytes_.size()) return std::size_t{0};
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), bytes_.size() - pos));
    std::memcpy(out.data(), bytes_.data() + pos, n);
    return n;
}

}  // namespace rdelta
