// test_hooks.hpp - the points where tests watch and steer the library and the
// tool: events counted to prove that a path ran, a switch that sends small inputs
// down a path meant for large ones, and the moments at which the crash tests stop
// or kill the process.
//
// A link seam, not a build option: the library defines every hook to do nothing
// (test_hooks_off.cpp), and only the test programs (the unit tests, the fuzz
// targets and rdelta-test, the tool as the crash tests run it) link
// tests/hooks/test_hooks_on.cpp, whose object comes before the library's archive
// on their link line and so replaces the library's. The installed tool and
// libraries count nothing for tests and read no test environment variable, in
// every build (tests/package/no_test_hooks_check.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace rdelta::detail::test_hooks {

/// What the library reports to the hooks (count()).
enum class event : unsigned {
    kept_bytes_repeated,       ///< a delta input began with the kept bytes passed again
    parallel_scan,             ///< a scan really split into segments across threads
    candidate_batch,           ///< candidate or tail windows hashed more than one at a time
    periodic_windows_skipped,  ///< windows passed over as equal to earlier ones that missed
};
/// How many kinds of event there are.
inline constexpr std::size_t event_kinds = static_cast<std::size_t>(event::periodic_windows_skipped) + 1;

/// Count `n` of `what` (nothing outside test programs).
void count(event what, std::uint64_t n) noexcept;

/// Whether delta scans batch their candidate windows whatever the signature's size
/// (always false outside test programs): small test signatures reach the path of
/// multi-GiB ones. It changes speed, never output.
bool gather_forced() noexcept;

/// A change to a history folder was made (a staging file synced, a file renamed or
/// moved in, a point deleted) or is about to be (a committed journal moved in).
void history_step() noexcept;

/// The command's folder of `--name-in-dir` was entered (the tool's target_folder).
void target_folder_entered() noexcept;

/// An in-place patch committed its journal: the image is whole, its note, journal
/// and new manifest are still as during the patch.
void in_place_committed() noexcept;

/// The journal batches of `patch --in-place` (the tool's in_place_options): left
/// as they are outside test programs.
void steer_in_place(std::uint64_t& batch_bytes, std::function<void(std::uint64_t)>& after_batch);

}  // namespace rdelta::detail::test_hooks
