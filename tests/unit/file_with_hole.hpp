// file_with_hole.hpp - a random-access file in memory with one range reported as a
// hole, for the tests of make_signature_from and make_delta_from.
#pragma once

#include "test_helpers.hpp"

#include <rdelta/patch.hpp>

#include <algorithm>

namespace rdelta::test {

/// Reads `bytes`; [from, to) is reported as a hole (the bytes there should be zeros).
class file_with_hole final : public basis_reader {
public:
    file_with_hole(const bytes& b, std::uint64_t from, std::uint64_t to) : bytes_(b), from_(from), to_(to) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos >= bytes_.size()) return std::size_t{0};
        const std::size_t n = std::min<std::size_t>(out.size(), bytes_.size() - pos);
        std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(pos), n, out.begin());
        return n;
    }
    bool is_hole(std::uint64_t pos, std::uint64_t len) override { return pos >= from_ && pos + len <= to_; }

private:
    const bytes& bytes_;
    std::uint64_t from_, to_;
};

}  // namespace rdelta::test
