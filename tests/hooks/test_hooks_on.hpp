// test_hooks_on.hpp - what the test programs read and set through the hooks they
// link (test_hooks_on.cpp, which replaces the library's hooks: the seam is
// described in src/core/test_hooks.hpp).
#pragma once

#include "core/test_hooks.hpp"

namespace rdelta::detail::test_hooks {

/// How many of `what` the library has counted in this process.
std::uint64_t counted(event what) noexcept;

/// Batch candidate windows whatever the signature's size (set by the fuzzers for
/// some inputs), as RDELTA_GATHER=1 does for a whole process.
void request_gather(bool on) noexcept;

}  // namespace rdelta::detail::test_hooks
