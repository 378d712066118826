// bench_weak.cpp - throughput of the whole-block weak sums: RabinKarp and rollsum
// through the dispatch at each ISA level, the scalar eight-byte loops
// (rabinkarp_block, rollsum_block) and the plain byte loops (rabinkarp_of,
// rollsum_of).
//
// Sums a 1 MiB buffer (fits in L2 on current x86 cores) block by block, again and
// again until about 256 MiB went through, so the numbers measure the kernels, not
// memory. Rows are timed in runs of 2 MiB and report the fastest run: on a shared
// machine a short run is less likely to lose the core.
// Usage: bench_weak [MiB per row, default 256] [block sizes, default 256 2048 32768]
#include "checksum/rabinkarp.hpp"
#include "checksum/rollsum.hpp"
#include "checksum/weak_block_sum.hpp"
#include "checksum/weak_dispatch.hpp"
#include "cpu/cpu_features.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace rdelta::detail;

namespace {

constexpr std::size_t buffer_bytes = std::size_t{1} << 20;
constexpr std::size_t repeats_per_run = 2;

volatile std::uint32_t sink;  // keeps the sums observable

template <typename Fn>
double best_gib_per_s(std::size_t total_bytes, std::size_t bytes_per_pass, Fn&& sum_buffer) {
    const std::size_t runs = std::max<std::size_t>(3, total_bytes / (repeats_per_run * bytes_per_pass));
    double best = 0;
    for (std::size_t run = 0; run < runs; ++run) {
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t r = 0; r < repeats_per_run; ++r) sum_buffer();
        const std::chrono::duration<double> secs = std::chrono::steady_clock::now() - start;
        const double gib = static_cast<double>(repeats_per_run * bytes_per_pass) / (1024.0 * 1024.0 * 1024.0);
        best = std::max(best, gib / secs.count());
    }
    return best;
}

// One row: `sum(p, n)` over every block of the buffer, for each block size.
template <typename Sum>
void row(const char* name, const std::vector<std::uint8_t>& data, const std::vector<std::size_t>& sizes,
         std::size_t total, Sum&& sum) {
    std::printf("%-22s", name);
    for (std::size_t block_len : sizes) {
        const std::size_t count = std::max<std::size_t>(1, buffer_bytes / block_len);
        const double rate = best_gib_per_s(total, count * block_len, [&] {
            std::uint32_t acc = 0;
            for (std::size_t i = 0; i < count; ++i) acc += sum(data.data() + i * block_len, block_len);
            sink = acc;
        });
        std::printf(" %9.2f", rate);
    }
    std::printf("\n");
    std::fflush(stdout);
}

std::uint32_t rollsum_fast_digest(const std::uint8_t* p, std::size_t n) {
    std::uint32_t s1 = 0, s2 = 0;
    rollsum_block_fast(p, n, s1, s2);
    return (s2 << 16) | (s1 & 0xffff);
}

std::uint32_t rollsum_block_digest(const std::uint8_t* p, std::size_t n) {
    std::uint32_t s1 = 0, s2 = 0;
    rollsum_block(p, n, s1, s2);
    return (s2 << 16) | (s1 & 0xffff);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t total_mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
    std::vector<std::size_t> sizes;
    for (int i = 2; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
    if (sizes.empty()) sizes = {256, 2048, 32768};
    const std::size_t total = total_mib << 20;

    std::vector<std::uint8_t> data(buffer_bytes);
    std::uint64_t x = 0x9e3779b97f4a7c15ull;
    for (auto& b : data) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b = static_cast<std::uint8_t>(x >> 24);
    }

    std::printf("weak block sums, GiB/s (fastest 2 MiB run of %zu MiB per cell, detected %s)\n", total_mib,
                isa_name(detected_isa()));
    std::printf("%-22s", "block size");
    for (std::size_t s : sizes) std::printf(" %9zu", s);
    std::printf("\n");

    char name[64];
    for (isa level : isa_ladder()) {
        if (level > detected_isa()) continue;
        force_isa(level);
        std::snprintf(name, sizeof name, "rabinkarp %s", isa_name(level));
        row(name, data, sizes, total, [](const std::uint8_t* p, std::size_t n) { return rabinkarp_block_fast(p, n); });
    }
    reset_forced_isa();
    row("rabinkarp_block", data, sizes, total,
        [](const std::uint8_t* p, std::size_t n) { return rabinkarp_block(p, n); });
    row("rabinkarp_of", data, sizes, total, [](const std::uint8_t* p, std::size_t n) { return rabinkarp_of(p, n); });

    for (isa level : isa_ladder()) {
        if (level > detected_isa()) continue;
        force_isa(level);
        std::snprintf(name, sizeof name, "rollsum %s", isa_name(level));
        row(name, data, sizes, total, rollsum_fast_digest);
    }
    reset_forced_isa();
    row("rollsum_block", data, sizes, total, rollsum_block_digest);
    row("rollsum_of", data, sizes, total, [](const std::uint8_t* p, std::size_t n) { return rollsum_of(p, n); });
    return 0;
}
