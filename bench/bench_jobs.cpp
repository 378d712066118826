// bench_jobs.cpp - throughput of the streaming jobs (what a service that pushes
// data as it receives it gets) by push size, with the default format and all cores:
// the signature job by block length, the delta job on data with scattered edits
// and on unrelated data.
//
// Signs or deltas 256 MiB of random data (or the MiB given) pushed through a
// job_pump in pieces of 1500 bytes to 8 MiB; best of three runs.
// Usage: bench_jobs [MiB, default 256]
#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/signature.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

namespace {

using bytes = std::vector<std::uint8_t>;

constexpr std::size_t pushes[] = {1500, std::size_t{16} << 10, std::size_t{64} << 10, std::size_t{8} << 20};

bytes random_bytes(std::size_t n, std::uint64_t seed) {
    bytes d(n);
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
        const std::uint64_t v = rng();
        std::memcpy(d.data() + i, &v, 8);
    }
    return d;
}

// Seconds for `make_job()` over `data` pushed `push` bytes at a time; negative
// when the job fails.
double time_job(const std::function<std::unique_ptr<rdelta::job>()>& make_job, const bytes& data, std::size_t push) {
    auto job = make_job();
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
    return out_bytes > 0 ? secs.count() : -1;
}

// One row per push size: the best of three runs, in MB/s.
bool print_rows(const char* what, const std::function<std::unique_ptr<rdelta::job>()>& make_job, const bytes& data) {
    for (const std::size_t push : pushes) {
        double best = 1e30;
        for (int run = 0; run < 3; ++run) {
            const double secs = time_job(make_job, data, push);
            if (secs < 0) return false;
            best = std::min(best, secs);
        }
        std::printf("%-32s %-10zu %10.0f\n", what, push, static_cast<double>(data.size()) / 1e6 / best);
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t size = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256) << 20;
    const bytes basis = random_bytes(size, 1);
    std::printf("%-32s %-10s %10s\n", "job", "push", "MB/s");
    for (const std::uint32_t block_len : {2048u, 32768u, 1u << 20}) {
        char what[64];
        std::snprintf(what, sizeof what, "signature, %u-byte blocks", block_len);
        if (!print_rows(
                what,
                [&] {
                    return rdelta::make_signature_job({0x72730147, block_len, 32});
                },
                basis)) {
            std::fprintf(stderr, "bench_jobs: the signature job failed\n");
            return 1;
        }
    }
    auto params = rdelta::resolve_sig_params({static_cast<std::int64_t>(size), 0, 0, 0});
    auto sig_bytes = params ? rdelta::make_signature(basis, params->params) : rdelta::result<bytes>(params.err());
    auto sig = sig_bytes ? rdelta::load_signature(*sig_bytes) : rdelta::result<rdelta::signature>(sig_bytes.err());
    if (!sig || !sig->build_index()) {
        std::fprintf(stderr, "bench_jobs: could not make the signature\n");
        return 1;
    }
    bytes edits = basis;
    std::mt19937_64 rng(7);
    for (int i = 0; i < 64; ++i) {  // scattered 4 KiB rewrites
        const std::size_t at = rng() % (size - 4096);
        for (std::size_t k = 0; k < 4096; ++k) edits[at + k] = static_cast<std::uint8_t>(rng());
    }
    // The scan without the checksum trailer (rdiff's bytes), as earlier runs measured.
    const auto make_delta = [&] { return rdelta::make_delta_job(*sig, rdelta::delta_options{{0}, false}); };
    if (!print_rows("delta, scattered edits", make_delta, edits) ||
        !print_rows("delta, unrelated data", make_delta, random_bytes(size, 2))) {
        std::fprintf(stderr, "bench_jobs: the delta job failed\n");
        return 1;
    }
    return 0;
}
