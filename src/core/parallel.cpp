// parallel.cpp - parallel_for over a shared boost::asio::thread_pool.
#include "parallel.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <atomic>
#include <latch>
#include <thread>

namespace rdelta::detail {

unsigned default_threads() noexcept { return std::max(1u, std::thread::hardware_concurrency()); }

namespace {

boost::asio::thread_pool& shared_pool() {
    // Workers besides the calling thread; leaked on purpose so no job can outlive it.
    static auto* pool = new boost::asio::thread_pool(std::max(1u, default_threads() - 1));
    return *pool;
}

}  // namespace

void parallel_for(std::size_t tasks, unsigned threads, const std::function<void(std::size_t)>& fn) {
    const std::size_t workers = std::min<std::size_t>(tasks, threads == 0 ? default_threads() : threads);
    if (workers <= 1) {
        for (std::size_t i = 0; i < tasks; ++i) fn(i);
        return;
    }
    // Each worker takes the next task index until none are left.
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < tasks;) fn(i);
    };
    std::latch finished(static_cast<std::ptrdiff_t>(workers - 1));
    for (std::size_t w = 1; w < workers; ++w)
        boost::asio::post(shared_pool(), [&] {
            work();
            finished.count_down();
        });
    work();
    finished.wait();
}

}  // namespace rdelta::detail
