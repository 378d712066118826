// parallel.hpp - run independent pieces of work on several cores.
#pragma once

#include <cstddef>
#include <functional>

namespace rdelta::detail {

/// Number of cores to use when the caller asks for 0 ("all").
unsigned default_threads() noexcept;

/// Call fn(i) for i in [0, tasks) using up to `threads` threads (the caller's
/// thread included) and return when all calls have finished. Threads come from a
/// process-wide Boost.Asio pool created on first use.
void parallel_for(std::size_t tasks, unsigned threads, const std::function<void(std::size_t)>& fn);

}  // namespace rdelta::detail
