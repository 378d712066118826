// test_hooks_on.cpp - the test programs' hooks (src/core/test_hooks.hpp): events
// counted, and the environment variables by which the CLI tests steer rdelta-test.
//
//   RDELTA_GATHER=1                     delta scans batch their candidate windows
//   RDELTA_INPLACE_BATCH_BYTES=N        patch --in-place ends a journal batch at N bytes
//   RDELTA_TEST_KILL_AFTER_BATCH=N      SIGKILL right after journal batch N
//   RDELTA_TEST_STOP_AFTER_BATCH=N      SIGSTOP right after journal batch N (until SIGCONT)
//   RDELTA_TEST_KILL_AT_HISTORY_STEP=N  SIGKILL right after the Nth history step
//   RDELTA_TEST_STOP_IN_TARGET_FOLDER=1 SIGSTOP once in the folder of --name-in-dir
//   RDELTA_TEST_KILL_AFTER_COMMIT=1     SIGKILL once an in-place patch's journal is committed
//
// Linked into test programs only, as an object ahead of the library's archive:
// each function here must have its namesake in src/core/test_hooks_off.cpp.
#include "test_hooks_on.hpp"

#include <array>
#include <atomic>
#include <csignal>
#include <cstdlib>

namespace rdelta::detail::test_hooks {

namespace {

std::array<std::atomic<std::uint64_t>, event_kinds> counts{};
std::atomic<bool> gather_requested{false};

// A variable's value as a number; 0 when it is unset.
std::uint64_t number_from(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::strtoull(v, nullptr, 10) : 0;
}

}  // namespace

void count(event what, std::uint64_t n) noexcept {
    counts[static_cast<std::size_t>(what)].fetch_add(n, std::memory_order_relaxed);
}

std::uint64_t counted(event what) noexcept {
    return counts[static_cast<std::size_t>(what)].load(std::memory_order_relaxed);
}

void request_gather(bool on) noexcept {
    gather_requested.store(on, std::memory_order_relaxed);
}

bool gather_forced() noexcept {
    static const bool from_env = [] {
        const char* v = std::getenv("RDELTA_GATHER");
        return v != nullptr && v[0] == '1';
    }();
    return from_env || gather_requested.load(std::memory_order_relaxed);
}

void history_step() noexcept {
    static const std::uint64_t kill_at = number_from("RDELTA_TEST_KILL_AT_HISTORY_STEP");
    static std::atomic<std::uint64_t> steps{0};
    if (kill_at > 0 && steps.fetch_add(1, std::memory_order_relaxed) + 1 == kill_at) std::raise(SIGKILL);
}

void target_folder_entered() noexcept {
    if (number_from("RDELTA_TEST_STOP_IN_TARGET_FOLDER") > 0) std::raise(SIGSTOP);
}

void in_place_committed() noexcept {
    if (number_from("RDELTA_TEST_KILL_AFTER_COMMIT") > 0) std::raise(SIGKILL);
}

void steer_in_place(std::uint64_t& batch_bytes, std::function<void(std::uint64_t)>& after_batch) {
    if (const char* b = std::getenv("RDELTA_INPLACE_BATCH_BYTES")) batch_bytes = std::strtoull(b, nullptr, 10);
    if (const std::uint64_t n = number_from("RDELTA_TEST_KILL_AFTER_BATCH"))
        after_batch = [n](std::uint64_t batch) {
            if (batch == n) std::raise(SIGKILL);
        };
    if (const std::uint64_t n = number_from("RDELTA_TEST_STOP_AFTER_BATCH"))
        after_batch = [n](std::uint64_t batch) {
            if (batch == n) std::raise(SIGSTOP);
        };
}

}  // namespace rdelta::detail::test_hooks
