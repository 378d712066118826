// bench_md4.cpp - MD4 throughput of md4_many() at each ISA level, and OpenSSL's MD4.
//
// Hashes a 1 MiB buffer (fits in L2 on current x86 cores) again and again until
// about 256 MiB went through, so the numbers measure the kernels, not memory.
// Usage: bench_md4 [MiB per row, default 256]
#define OPENSSL_SUPPRESS_DEPRECATED
#include "checksum/md4_many.hpp"
#include "cpu/cpu_features.hpp"

#include <openssl/md4.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace rdelta::detail;

namespace {

constexpr std::size_t buffer_bytes = std::size_t{1} << 20;
constexpr std::size_t digest_stride = 16;

volatile std::uint8_t sink;  // keeps the digests observable

// Rows are timed in runs of 2 MiB (about 2 ms at 1 GiB/s) and report the fastest
// run: on a shared machine a short run is less likely to lose the core.
constexpr std::size_t repeats_per_run = 2;

template <typename Fn>
double best_gib_per_s(std::size_t total_bytes, Fn&& hash_buffer) {
    const std::size_t runs = std::max<std::size_t>(1, total_bytes / (repeats_per_run * buffer_bytes));
    double best = 0;
    for (std::size_t run = 0; run < runs; ++run) {
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t r = 0; r < repeats_per_run; ++r) hash_buffer();
        const std::chrono::duration<double> secs = std::chrono::steady_clock::now() - start;
        const double gib = static_cast<double>(repeats_per_run * buffer_bytes) / (1024.0 * 1024.0 * 1024.0);
        if (gib / secs.count() > best) best = gib / secs.count();
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t total_mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
    std::vector<std::uint8_t> data(buffer_bytes);
    std::uint64_t x = 0x9e3779b97f4a7c15ull;
    for (auto& b : data) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b = static_cast<std::uint8_t>(x >> 24);
    }

    std::printf("md4 throughput, GiB/s (fastest 2 MiB run of %zu MiB per row, detected %s)\n", total_mib,
                isa_name(detected_isa()));
    std::printf("%-10s %10s %10s %10s\n", "level", "256", "2048", "32768");
    const std::size_t block_sizes[] = {256, 2048, 32768};
    const std::size_t total = total_mib << 20;

    for (isa level : isa_ladder()) {
        if (level > detected_isa()) continue;
        force_isa(level);
        std::printf("%-10s", isa_name(level));
        for (std::size_t block_len : block_sizes) {
            const std::size_t count = buffer_bytes / block_len;
            std::vector<std::uint8_t> out(count * digest_stride);
            const double rate = best_gib_per_s(total, [&] {
                md4_many(data.data(), block_len, count, out.data(), digest_stride);
                sink = out[0];
            });
            std::printf(" %10.2f", rate);
        }
        std::printf("\n");
    }
    reset_forced_isa();

    std::printf("%-10s", "openssl");
    for (std::size_t block_len : block_sizes) {
        const std::size_t count = buffer_bytes / block_len;
        std::vector<std::uint8_t> out(count * digest_stride);
        const double rate = best_gib_per_s(total, [&] {
            for (std::size_t i = 0; i < count; ++i)
                MD4(data.data() + i * block_len, block_len, out.data() + i * digest_stride);
            sink = out[0];
        });
        std::printf(" %10.2f", rate);
    }
    std::printf("\n");

    std::printf("%-10s", "md4_one");
    for (std::size_t block_len : block_sizes) {
        const std::size_t count = buffer_bytes / block_len;
        std::vector<std::uint8_t> out(count * digest_stride);
        const double rate = best_gib_per_s(total, [&] {
            for (std::size_t i = 0; i < count; ++i)
                md4_one(data.data() + i * block_len, block_len, out.data() + i * digest_stride);
            sink = out[0];
        });
        std::printf(" %10.2f", rate);
    }
    std::printf("\n");
    return 0;
}
