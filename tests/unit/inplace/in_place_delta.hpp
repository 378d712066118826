// in_place_delta.hpp - deltas for patch_in_place(): made in memory, and opened
// from memory as it opens its delta.
#pragma once

#include "test_helpers.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/in_place.hpp>
#include <rdelta/io.hpp>
#include <rdelta/signature.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>

namespace rdelta::test {

/// An in-place-safe delta from `basis` to `next` over blocks of `block` bytes
/// (duplicate blocks kept in the index), made on the calling thread.
inline bytes in_place_delta(const bytes& basis, const bytes& next, std::uint32_t block, bool checksum) {
    auto sig_bytes = make_signature(basis, {0x72730147, block, 32});
    REQUIRE(sig_bytes.ok());
    auto sig = load_signature(*sig_bytes);
    REQUIRE(sig.ok());
    REQUIRE(sig->build_index(true).ok());
    auto d = make_delta(*sig, next, 0, delta_options{{1}, checksum, true});
    REQUIRE(d.ok());
    return *d;
}

/// Opens `delta` (which must outlive the opener) as a memory_source named "delta".
inline delta_opener opener_of(const bytes& delta) {
    return [&delta]() -> result<std::unique_ptr<byte_source>> {
        return std::unique_ptr<byte_source>(std::make_unique<memory_source>(delta, "delta"));
    };
}

}  // namespace rdelta::test
