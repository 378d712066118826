// parallel.cpp - parallel_for over a process-wide pool of worker threads.
//
// The pool grows on demand, one thread at a time, up to what callers ask for. A
// thread that cannot be started (RLIMIT_NPROC, or no address space left for its
// stack under `ulimit -v`) is not an error: the work runs on the threads there are,
// the caller's included. (boost::asio::thread_pool, used before, starts all its
// threads in its constructor and hangs joining the started ones when one fails.)
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <latch>
#include <mutex>
#include <system_error>
#include <thread>

namespace rdelta::detail {

unsigned default_threads() noexcept {
    // Asked once: glibc reads /sys/devices/system/cpu/online on every call, and the
    // one-shot calls over memory ask for each job.
    static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return cores;
}

namespace {

class worker_pool {
public:
    /// Start threads until `want` exist or no more can be started; returns how many exist.
    std::size_t grow(std::size_t want) noexcept {
        std::lock_guard lock(mutex_);
        while (threads_ < want) {
            try {
                std::thread(&worker_pool::run, this).detach();
            } catch (const std::system_error&) {
                break;
            }
            ++threads_;
        }
        return threads_;
    }

    /// Queue a task (throws std::bad_alloc when the queue cannot grow).
    void post(std::function<void()> task) {
        {
            std::lock_guard lock(mutex_);
            tasks_.push_back(std::move(task));
        }
        ready_.notify_one();
    }

private:
    [[noreturn]] void run() {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock lock(mutex_);
                ready_.wait(lock, [&] { return !tasks_.empty(); });
                task = std::move(tasks_.front());
                tasks_.pop_front();
            }
            task();  // never throws: parallel_for's tasks catch everything
        }
    }

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    std::size_t threads_ = 0;
};

worker_pool& shared_pool() {
    // Leaked on purpose: detached workers wait on it until the process ends.
    static auto* pool = new worker_pool;
    return *pool;
}

}  // namespace

void parallel_for(std::size_t tasks, unsigned threads, const std::function<void(std::size_t)>& fn,
                  bool caller_runs_first) {
    const std::size_t workers = std::min<std::size_t>(tasks, threads == 0 ? default_threads() : threads);
    if (workers <= 1) {
        for (std::size_t i = 0; i < tasks; ++i) fn(i);
        return;
    }
    const std::size_t helpers = std::min(workers - 1, shared_pool().grow(workers - 1));
    // Each thread takes the next task index until none are left. The first
    // exception stops the others taking more and is rethrown here, once all are done.
    std::atomic<std::size_t> next{caller_runs_first ? std::size_t{1} : std::size_t{0}};
    std::exception_ptr first_error;
    std::mutex error_mutex;
    auto work = [&](bool first) noexcept {
        try {
            if (first) fn(0);
            for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < tasks;) fn(i);
        } catch (...) {
            next.store(tasks, std::memory_order_relaxed);
            std::lock_guard lock(error_mutex);
            if (!first_error) first_error = std::current_exception();
        }
    };
    std::latch finished(static_cast<std::ptrdiff_t>(helpers));
    std::size_t posted = 0;
    try {
        for (; posted < helpers; ++posted)
            shared_pool().post([&] {
                work(false);
                finished.count_down();
            });
    } catch (...) {  // no memory to queue more: the threads posted so far suffice
        finished.count_down(static_cast<std::ptrdiff_t>(helpers - posted));
    }
    work(caller_runs_first);
    finished.wait();
    if (first_error) std::rethrow_exception(first_error);
}

}  // namespace rdelta::detail
