// test_hooks.hpp - what tests watch and steer inside the library: counters that
// prove a path ran, and switches that send small inputs down paths meant for large
// ones. Compiled only into test and fuzzing builds (meson defines RDELTA_TESTING
// with -Dtests=true or a fuzzing engine); a build with -Dtests=false, as a package
// makes, has neither the counters nor the environment variables.
#pragma once

#include <atomic>
#include <cstdint>

#ifdef RDELTA_TESTING
#include <cstdlib>
#endif

namespace rdelta::detail::test_hooks {

#ifdef RDELTA_TESTING
inline constexpr bool compiled = true;

/// Delta inputs that began with the kept bytes passed again.
inline std::atomic<std::uint64_t> kept_bytes_repeated{0};
/// Scans really split into segments across threads.
inline std::atomic<std::uint64_t> parallel_scans_run{0};
/// hash_candidates() and tail_digest() calls that hashed more than one window.
inline std::atomic<std::uint64_t> candidate_batches_run{0};
/// Windows passed over as equal to earlier windows that missed (runs of one byte
/// value, data of a short period).
inline std::atomic<std::uint64_t> periodic_windows_skipped{0};
/// Set by the fuzzers for some inputs: batch candidate windows whatever the
/// signature's size, as RDELTA_GATHER=1 does for a whole process.
inline std::atomic<bool> gather_requested{false};

inline void count(std::atomic<std::uint64_t>& counter, std::uint64_t n = 1) noexcept {
    counter.fetch_add(n, std::memory_order_relaxed);
}

/// RDELTA_GATHER=1, or gather_requested: small test signatures reach the batched
/// candidate path (it changes speed, never output).
inline bool gather_forced() noexcept {
    static const bool from_env = [] {
        const char* v = std::getenv("RDELTA_GATHER");
        return v != nullptr && v[0] == '1';
    }();
    return from_env || gather_requested.load(std::memory_order_relaxed);
}
#else
inline constexpr bool compiled = false;
inline bool gather_forced() noexcept {
    return false;
}
#endif

}  // namespace rdelta::detail::test_hooks

/// Count an event for the tests (nothing outside test builds).
#ifdef RDELTA_TESTING
#define RDELTA_TEST_COUNT(counter, n) ::rdelta::detail::test_hooks::count(::rdelta::detail::test_hooks::counter, (n))
#else
#define RDELTA_TEST_COUNT(counter, n) ((void)0)
#endif
