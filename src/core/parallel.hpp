// parallel.hpp - run independent pieces of work on several cores.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>

namespace rdelta::detail {

/// Number of cores to use when the caller asks for 0 ("all").
unsigned default_threads() noexcept;

/// Bytes of work per core below which splitting a job among threads does not pay
/// for itself (1 MiB: the delta scan's segments, the signature's slices). Only the
/// fuzzers change it, to a few KiB, so that the parallel paths run on inputs small
/// enough to execute hundreds of times per second; outputs do not depend on it.
inline std::atomic<std::size_t> parallel_grain{std::size_t{1} << 20};

/// Call fn(i) for i in [0, tasks) using up to `threads` threads (the caller's
/// thread included) and return when all calls have finished. Threads come from a
/// process-wide pool that grows on first use; when no thread can be started the
/// calls run on the caller's thread. An exception from fn (std::bad_alloc) stops
/// the remaining calls and is rethrown to the caller after all threads are done.
/// With `caller_runs_first`, fn(0) runs on the caller's thread (work that calls
/// back into the caller's code: its sinks need not be thread-safe or thread-agnostic).
void parallel_for(std::size_t tasks, unsigned threads, const std::function<void(std::size_t)>& fn,
                  bool caller_runs_first = false);

}  // namespace rdelta::detail
