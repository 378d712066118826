// bench_blake2b.cpp - throughput of blake2b256_many per ISA level, and of libb2.
//
// Standalone: plain main, std::chrono. For each block size it hashes about
// 256 MiB (a 32 MiB buffer, several passes) and reports the best of a few
// repetitions in GiB/s, with every available level forced in turn. The libb2
// row calls blake2b() once per block, as rdiff does.
#include "checksum/blake2b_many.hpp"
#include "cpu/cpu_features.hpp"

#include <blake2.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace rdelta::detail;

namespace {

constexpr std::size_t buffer_bytes = std::size_t{32} << 20;
constexpr std::size_t total_bytes = std::size_t{256} << 20;
constexpr int repetitions = 5;

volatile std::uint8_t sink = 0;  // keeps the digests observable

template <class Fn>
double best_gib_per_s(std::size_t block_len, Fn&& hash_buffer) {
    const std::size_t blocks = buffer_bytes / block_len;
    const std::size_t passes = total_bytes / (blocks * block_len);
    double best = 0;
    for (int r = 0; r < repetitions; ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t p = 0; p < passes; ++p) hash_buffer(blocks);
        const std::chrono::duration<double> secs = std::chrono::steady_clock::now() - start;
        const double rate = static_cast<double>(passes * blocks * block_len) / secs.count() / (1u << 30);
        if (rate > best) best = rate;
    }
    return best;
}

}  // namespace

int main() {
    std::vector<std::uint8_t> data(buffer_bytes);
    std::uint64_t x = 0x9e3779b97f4a7c15ull;
    for (auto& b : data) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b = static_cast<std::uint8_t>(x >> 24);
    }
    const std::size_t block_sizes[] = {256, 2048, 32768};
    std::vector<std::uint8_t> digests(buffer_bytes / block_sizes[0] * 32);

    std::printf("BLAKE2b-256, %zu MiB per measurement, best of %d; detected %s\n", total_bytes >> 20, repetitions,
                isa_name(detected_isa()));
    std::printf("%-22s", "GiB/s");
    for (std::size_t bs : block_sizes) std::printf("%10zu", bs);
    std::printf("\n");

    std::printf("%-22s", "libb2 blake2b()");
    for (std::size_t bs : block_sizes) {
        const double rate = best_gib_per_s(bs, [&](std::size_t blocks) {
            for (std::size_t i = 0; i < blocks; ++i) blake2b(&digests[i * 32], &data[i * bs], nullptr, 32, bs, 0);
        });
        std::printf("%10.3f", rate);
    }
    std::printf("\n");

    for (isa level : isa_ladder()) {
        if (level > detected_isa()) break;
        force_isa(level);
        std::printf("blake2b256_many %-6s", isa_name(level));
        for (std::size_t bs : block_sizes) {
            const double rate = best_gib_per_s(
                bs, [&](std::size_t blocks) { blake2b256_many(data.data(), bs, blocks, digests.data(), 32); });
            std::printf("%10.3f", rate);
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    reset_forced_isa();
    std::uint8_t acc = 0;
    for (std::uint8_t d : digests) acc ^= d;
    sink = acc;
    return EXIT_SUCCESS;
}
