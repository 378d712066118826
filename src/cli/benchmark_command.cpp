// benchmark_command.cpp - `rdelta benchmark`: the throughput of each checksum
// kernel at every SIMD level this CPU has, then signature, delta and patch on
// generated data in memory, as one table (or JSON with --json).
#include "benchmark_command.hpp"

#include "checksum/strong_sum.hpp"
#include "checksum/weak_dispatch.hpp"
#include "cpu/cpu_features.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>
#include <rdelta/version.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace rdelta::cli {

namespace {

using bytes = std::vector<std::uint8_t>;
using clock_type = std::chrono::steady_clock;

struct row {
    std::string what, level;
    double mb_per_s;
};

// Best of three timed runs of `fn`, each over `size` bytes, as MB/s.
double throughput(std::size_t size, const std::function<void()>& fn) {
    double best = 0;
    for (int i = 0; i < 3; ++i) {
        const auto start = clock_type::now();
        fn();
        const double secs = std::chrono::duration<double>(clock_type::now() - start).count();
        if (secs > 0) best = std::max(best, static_cast<double>(size) / 1e6 / secs);
    }
    return best;
}

bytes random_bytes(std::size_t n, std::uint64_t seed) {
    bytes out(n);
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
        const std::uint64_t v = rng();
        std::memcpy(out.data() + i, &v, 8);
    }
    return out;
}

// Weak and strong kernels over 4 KiB blocks, at each level up to the one in use.
void kernel_rows(const bytes& data, std::vector<row>& rows) {
    constexpr std::size_t block = 4096;
    const std::size_t blocks = data.size() / block;
    std::vector<std::uint8_t> digests(blocks * detail::digest_stride);
    volatile std::uint32_t sink = 0;
    const detail::isa top = detail::active_isa();  // RDELTA_FORCE_ISA caps it
    for (const detail::isa level : detail::isa_ladder()) {
        if (level > top) break;
        detail::force_isa(level);
        const std::string name = detail::isa_name(level);
        rows.push_back({"weak RabinKarp", name, throughput(data.size(), [&] {
                            for (std::size_t b = 0; b < blocks; ++b)
                                sink = sink + detail::rabinkarp_block_fast(data.data() + b * block, block);
                        })});
        rows.push_back({"weak rollsum", name, throughput(data.size(), [&] {
                            std::uint32_t s1 = 0, s2 = 0;
                            for (std::size_t b = 0; b < blocks; ++b)
                                detail::rollsum_block_fast(data.data() + b * block, block, s1, s2);
                            sink = sink + s1 + s2;
                        })});
        for (auto kind : {strong_kind::md4, strong_kind::blake2}) {
            rows.push_back({kind == strong_kind::md4 ? "strong MD4 (multi-buffer)" : "strong BLAKE2b (multi-buffer)",
                            name, throughput(data.size(), [&] {
                                detail::strong_sum_many(kind, data.data(), block, blocks, digests.data());
                            })});
        }
    }
    detail::reset_forced_isa();
}

// Signature, delta and patch of generated data with the default format, all cores.
std::optional<std::string> job_rows(const bytes& basis, std::vector<row>& rows) {
    bytes next = basis;
    std::mt19937_64 rng(7);
    for (int i = 0; i < 64; ++i) {  // scattered 4 KiB rewrites
        const std::size_t at = rng() % (next.size() - 4096);
        for (std::size_t k = 0; k < 4096; ++k) next[at + k] = static_cast<std::uint8_t>(rng());
    }
    const job_options all_cores{0};
    auto params = resolve_sig_params({std::uint64_t{basis.size()}, 0, 0, 0});
    if (!params) return params.err().message;
    result<bytes> sig_bytes = bytes{};
    const std::string level = simd_level();
    rows.push_back({"signature", level,
                    throughput(basis.size(), [&] { sig_bytes = make_signature(basis, params->params, all_cores); })});
    if (!sig_bytes) return sig_bytes.err().message;
    auto sig = load_signature(*sig_bytes);
    if (!sig) return sig.err().message;
    if (auto indexed = sig->build_index(); !indexed) return indexed.err().message;
    result<bytes> delta = bytes{};
    rows.push_back({"delta", level, throughput(next.size(), [&] {
                        delta = make_delta(*sig, next, 0, delta_options{all_cores, false});
                    })});
    if (!delta) return delta.err().message;
    result<bytes> out = bytes{};
    rows.push_back({"patch", level, throughput(next.size(), [&] { out = apply_patch(basis, *delta); })});
    if (!out) return out.err().message;
    if (*out != next) return std::string("the patched data differs from the new data");
    return std::nullopt;
}

void print_table(const std::vector<row>& rows, std::size_t size) {
    std::printf("rdelta %s benchmark: %zu MiB in memory, best of 3; SIMD in use: %s\n", version, size >> 20,
                simd_level());
    std::printf("%-32s %-8s %10s\n", "what", "level", "MB/s");
    for (const auto& r : rows) std::printf("%-32s %-8s %10.0f\n", r.what.c_str(), r.level.c_str(), r.mb_per_s);
}

void print_json(const std::vector<row>& rows, std::size_t size) {
    std::printf("{\"version\": \"%s\", \"bytes\": %zu, \"simd_in_use\": \"%s\", \"rows\": [", version, size,
                simd_level());
    for (std::size_t i = 0; i < rows.size(); ++i)
        std::printf("%s\n  {\"what\": \"%s\", \"level\": \"%s\", \"mb_per_s\": %.1f}", i ? "," : "",
                    rows[i].what.c_str(), rows[i].level.c_str(), rows[i].mb_per_s);
    std::printf("\n]}\n");
}

}  // namespace

int benchmark_command(const request& req, const invocation& inv) {
    if (!req.files.empty()) return report_usage(inv, "benchmark takes no file names");
    const std::size_t size = std::size_t{64} << 20;
    const bytes data = random_bytes(size, 1);
    std::vector<row> rows;
    kernel_rows(data, rows);
    if (auto problem = job_rows(data, rows)) {
        std::fprintf(stderr, "%s: benchmark: %s\n", inv.prog.c_str(), problem->c_str());
        return 107;
    }
    if (req.json)
        print_json(rows, size);
    else
        print_table(rows, size);
    return 0;
}

}  // namespace rdelta::cli
