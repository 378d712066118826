// bench_signature_job.cpp - throughput of the streaming signature job (what a
// service that pushes what it receives gets) by push size and block length, with
// the default format and all cores.
//
// Pushes 256 MiB of random data through a job_pump in pieces of the given size
// and reports the best of three runs.
// Usage: bench_signature_job [MiB, default 256]
#include <rdelta/drive.hpp>
#include <rdelta/signature.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n) {
    std::vector<std::uint8_t> d(n);
    std::mt19937_64 rng(1);
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
        const std::uint64_t v = rng();
        std::memcpy(d.data() + i, &v, 8);
    }
    return d;
}

// Seconds for one signature of `data` pushed `push` bytes at a time, or a negative
// value when the job fails.
double time_job(const std::vector<std::uint8_t>& data, std::uint32_t block_len, std::size_t push) {
    auto job = rdelta::make_signature_job({0x72730147, block_len, 32}, rdelta::job_options{0});
    std::size_t out_bytes = 0;
    rdelta::job_pump pump(*job, [&](std::span<const std::uint8_t> b) -> rdelta::result<void> {
        out_bytes += b.size();
        return {};
    });
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t off = 0; off < data.size(); off += push) {
        const std::size_t n = std::min(push, data.size() - off);
        if (!pump.push({data.data() + off, n}, off + n == data.size())) return -1;
    }
    const std::chrono::duration<double> secs = std::chrono::steady_clock::now() - start;
    return out_bytes > 12 ? secs.count() : -1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
    const auto data = random_bytes(mib << 20);
    std::printf("%-10s %-10s %10s\n", "block", "push", "MB/s");
    for (const std::uint32_t block_len : {2048u, 32768u, 1u << 20}) {
        for (const std::size_t push : {std::size_t{1500}, std::size_t{16} << 10, std::size_t{64} << 10,
                                       std::size_t{8} << 20}) {
            double best = 1e30;
            for (int run = 0; run < 3; ++run) {
                const double secs = time_job(data, block_len, push);
                if (secs < 0) {
                    std::fprintf(stderr, "bench_signature_job: the job failed\n");
                    return 1;
                }
                best = std::min(best, secs);
            }
            std::printf("%-10u %-10zu %10.0f\n", block_len, push, static_cast<double>(data.size()) / 1e6 / best);
        }
    }
    return 0;
}
