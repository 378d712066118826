// fuzz_common.hpp - what the fuzz targets share: a check macro that aborts (so
// libFuzzer and the replay runner both report it), exactly sized heap buffers (so
// AddressSanitizer sees any read or write past a window), hostile chunk schedules,
// and a driver that runs a streaming job through them while checking the job
// contract of rdelta/job.hpp.
#pragma once

#include "fuzz_data_producer.hpp"

#include <rdelta/basis_reader.hpp>
#include <rdelta/error.hpp>
#include <rdelta/job.hpp>
#include <rdelta/patch.hpp>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rdelta::fuzz {

[[noreturn]] __attribute__((format(printf, 4, 5))) inline void check_failed(const char* file, int line,
                                                                            const char* expr, const char* fmt, ...) {
    std::fprintf(stderr, "\n==FUZZ CHECK FAILED== %s:%d: %s\n  ", file, line, expr);
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stderr, fmt, args);
    va_end(args);
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    std::abort();
}

/// Abort with a message unless `cond` holds: FUZZ_CHECK(a == b, "sizes %zu %zu", x, y).
#define FUZZ_CHECK(cond, ...)                                                              \
    do {                                                                                   \
        if (!(cond)) ::rdelta::fuzz::check_failed(__FILE__, __LINE__, #cond, __VA_ARGS__); \
    } while (0)

using bytes = std::vector<std::uint8_t>;

/// Threads a target may ask for: `wanted`, capped by RDELTA_FUZZ_MAX_THREADS (to
/// keep fuzzing past a known multi-threading bug).
inline unsigned fuzz_threads(unsigned wanted) {
    static const unsigned cap = [] {
        const char* v = std::getenv("RDELTA_FUZZ_MAX_THREADS");
        return v ? static_cast<unsigned>(std::max(1, std::atoi(v))) : 64u;
    }();
    return std::min(wanted, cap);
}

/// Printable "code (message)" of an error.
inline std::string describe(const error& e) {
    return std::to_string(static_cast<int>(e.code)) + " (" + e.message + ")";
}

/// Exactly `size` heap bytes after `offset` bytes of slack: data() is misaligned by
/// `offset` and the allocation ends at data() + size, so ASan flags any over-read.
class exact_buffer {
public:
    explicit exact_buffer(std::size_t size, std::size_t offset = 0)
        : storage_(size + offset ? new std::uint8_t[size + offset] : nullptr), offset_(offset), size_(size) {}
    exact_buffer(std::span<const std::uint8_t> from, std::size_t offset = 0) : exact_buffer(from.size(), offset) {
        if (!from.empty()) std::memcpy(data(), from.data(), from.size());
    }
    std::uint8_t* data() noexcept { return storage_ ? storage_.get() + offset_ : nullptr; }
    std::size_t size() const noexcept { return size_; }
    std::span<const std::uint8_t> span() noexcept { return {data(), size_}; }

private:
    std::unique_ptr<std::uint8_t[]> storage_;
    std::size_t offset_, size_;
};

/// Window sizes for successive iterate() calls, cycled. Always has a non-zero entry.
class chunk_schedule {
public:
    chunk_schedule() = default;
    explicit chunk_schedule(std::size_t single) : sizes_{single ? single : 1}, count_(1) {}

    /// 1-4 sizes, mostly librsync triple.test's hostile sizes, 0 and 1 included.
    static chunk_schedule from(data_producer& p) {
        static constexpr std::size_t table[] = {0, 1, 1, 2, 3, 7, 15, 16, 100, 511, 4096, 65536};
        chunk_schedule s;
        s.count_ = p.value<std::size_t>(1, 4);
        for (std::size_t i = 0; i < s.count_; ++i)
            s.sizes_[i] = p.boolean() ? p.pick(table) : p.value<std::size_t>(1, 300);
        if (std::all_of(s.sizes_, s.sizes_ + s.count_, [](std::size_t v) { return v == 0; })) s.sizes_[0] = 1;
        return s;
    }

    /// 1-4 sizes for big inputs: from `pivot` to `pivot + spread` (sizes around an
    /// internal threshold, e.g. the 32768-byte literal cap), or large round sizes.
    static chunk_schedule around(data_producer& p, std::size_t pivot, std::size_t spread) {
        static constexpr std::size_t table[] = {1000, 4096, 65536, 100000};
        chunk_schedule s;
        s.count_ = p.value<std::size_t>(1, 4);
        for (std::size_t i = 0; i < s.count_; ++i)
            s.sizes_[i] = p.boolean() ? pivot + p.value<std::size_t>(0, spread) : p.pick(table);
        return s;
    }

    /// The same sizes, each raised to at least `floor` (0 included).
    chunk_schedule at_least(std::size_t floor) const noexcept {
        chunk_schedule s = *this;
        for (std::size_t i = 0; i < count_; ++i) s.sizes_[i] = std::max(sizes_[i], floor);
        return s;
    }

    std::size_t next() noexcept { return sizes_[i_++ % count_]; }
    bool constant() const noexcept {
        return std::all_of(sizes_, sizes_ + count_, [&](std::size_t v) { return v == sizes_[0]; });
    }
    std::size_t first() const noexcept { return sizes_[0]; }
    std::size_t smallest_nonzero() const noexcept {
        std::size_t m = std::numeric_limits<std::size_t>::max();
        for (std::size_t i = 0; i < count_; ++i)
            if (sizes_[i]) m = std::min(m, sizes_[i]);
        return m;
    }

private:
    std::size_t sizes_[4] = {1, 1, 1, 1};
    std::size_t count_ = 1;
    std::size_t i_ = 0;
};

/// Outcome of driving a job to completion or error.
struct run_result {
    bool ok = false;
    error err;                ///< when !ok
    bytes out;                ///< every byte the job wrote into its output windows
    std::uint64_t calls = 0;  ///< iterate() calls
};

/// Run `j` over `in`, feeding input and output windows from the schedules. Each call
/// gets a fresh exactly sized copy of its input window (the previous one freed) and a
/// fresh exactly sized output window, so ASan catches a job that reads or writes
/// outside them or keeps pointers into an earlier call's input. Checks the contract:
/// next/avail move together within the windows, a failed job repeats its error, and
/// a job given input (or eof) and output room makes progress. After 4 calls without
/// progress both windows are made non-empty, so every run ends.
/// Aborts if the job writes more than `out_cap` bytes.
inline run_result drive(job& j, std::span<const std::uint8_t> in, chunk_schedule in_sched, chunk_schedule out_sched,
                        std::uint64_t out_cap = std::numeric_limits<std::uint64_t>::max()) {
    run_result r;
    std::size_t off = 0;
    int stalled = 0, idle = 0;
    for (;;) {
        std::size_t n_in = std::min(in_sched.next(), in.size() - off);
        std::size_t n_out = out_sched.next();
        // Cycled schedules can keep offering input only without room and room only
        // without input; after a few idle calls, offer both.
        if (idle >= 4) {
            if (n_in == 0 && off < in.size()) n_in = 1;
            if (n_out == 0) n_out = out_sched.smallest_nonzero();
        }
        const bool eof = off + n_in == in.size();
        exact_buffer in_buf(in.subspan(off, n_in));
        exact_buffer out_buf(n_out);
        buffers io{in_buf.data(), n_in, eof, out_buf.data(), n_out};

        auto status = j.iterate(io);
        ++r.calls;

        FUZZ_CHECK(io.avail_in <= n_in && io.next_in == in_buf.data() + (n_in - io.avail_in),
                   "input window moved wrongly: offered %zu, avail_in now %zu", n_in, io.avail_in);
        FUZZ_CHECK(io.avail_out <= n_out && io.next_out == out_buf.data() + (n_out - io.avail_out),
                   "output window moved wrongly: offered %zu, avail_out now %zu", n_out, io.avail_out);
        const std::size_t consumed = n_in - io.avail_in, produced = n_out - io.avail_out;
        off += consumed;
        if (produced) r.out.insert(r.out.end(), out_buf.data(), out_buf.data() + produced);
        FUZZ_CHECK(r.out.size() <= out_cap, "job wrote %zu bytes, more than the bound %llu", r.out.size(),
                   static_cast<unsigned long long>(out_cap));

        if (!status) {
            r.err = status.err();
            buffers again{nullptr, 0, true, nullptr, 0};
            auto repeated = j.iterate(again);
            FUZZ_CHECK(!repeated && repeated.err().code == r.err.code, "a failed job must repeat its error %s",
                       describe(r.err).c_str());
            return r;
        }
        if (*status == job_status::done) {
            r.ok = true;
            return r;
        }
        if (consumed || produced) {
            stalled = idle = 0;
        } else {
            ++idle;
            if ((n_in > 0 || eof) && n_out > 0)
                FUZZ_CHECK(++stalled < 8, "job blocked %d times with input %zu (eof %d) and output room %zu", stalled,
                           n_in, eof, n_out);
        }
    }
}

/// The same, with one window size each for input and output.
inline run_result drive(job& j, std::span<const std::uint8_t> in, std::size_t in_chunk, std::size_t out_chunk) {
    return drive(j, in, chunk_schedule(in_chunk), chunk_schedule(out_chunk));
}

/// A basis of `size` bytes that is never stored: byte i is i * mul + add. A
/// signature's blocks can cover GiB (block_count * block_len), and a basis held in
/// memory is allocated and filled (ASan poisons it) for every input.
class pattern_basis final : public basis_reader {
public:
    pattern_basis(std::uint64_t size, std::uint8_t mul, std::uint8_t add) noexcept
        : size_(size), mul_(mul), add_(add) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        if (pos >= size_) return std::size_t{0};
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), size_ - pos));
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>((pos + i) * mul_ + add_);
        return n;
    }
    std::optional<std::uint64_t> size() const override { return size_; }

private:
    std::uint64_t size_;
    std::uint8_t mul_, add_;
};

/// `delta` applied to `basis` by a patch job in one call (what apply_patch does
/// over a basis in memory).
inline run_result patch_from(basis_reader& basis, std::span<const std::uint8_t> delta) {
    auto j = make_patch_job(basis);
    return drive(*j, delta, std::max<std::size_t>(delta.size(), 1), 8192);
}

/// A deterministic 1-in-`n` draw on the whole input: FNV-1a of every byte, with
/// `salt` mixed in. Expensive modes are gated by it (besides their parameter):
/// almost every mutation of an input re-draws it, so such a mode stays about 1 in
/// `n` of the executions however many corpus inputs were kept for reaching it
/// (a parameter byte alone is inherited by most mutations of those inputs).
/// make_seeds.py computes the same hash to write seeds that take the mode.
inline bool one_in(const std::uint8_t* data, std::size_t size, std::uint64_t n, std::uint64_t salt = 0) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ull ^ salt;
    for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
    return (h ^ (h >> 32)) % n == 0;
}

/// A small deterministic generator for synthesised inputs (seeded from the input).
struct xorshift {
    std::uint64_t s;
    std::uint64_t next() noexcept {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        return s;
    }
    std::size_t below(std::size_t n) noexcept { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

/// Append `n` bytes, each bits [shift, shift + 8) of the generator's next number:
/// through a pointer, as a byte pushed at a time costs most of a large input's
/// making under ASan.
inline void random_run(bytes& out, std::size_t n, unsigned shift, xorshift& rng) {
    const std::size_t at = out.size();
    out.resize(at + n);
    std::uint8_t* p = out.data() + at;
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint8_t>(rng.next() >> shift);
}

/// About `target` bytes: slices of `seed_bytes` with a byte changed, and random runs
/// of up to `max_run` bytes.
inline bytes synth_basis(std::span<const std::uint8_t> seed_bytes, std::size_t target, xorshift& rng,
                         std::size_t max_run = 20000) {
    bytes out;
    out.reserve(target + 70000);
    while (out.size() < target) {
        if (!seed_bytes.empty() && rng.below(2)) {
            const std::size_t at = out.size();
            out.insert(out.end(), seed_bytes.begin(), seed_bytes.end());
            out[at + rng.below(seed_bytes.size())] ^= 0x80;
        } else {
            random_run(out, 1 + rng.below(max_run), 32, rng);
        }
    }
    return out;
}

/// About `target` bytes: block-aligned and unaligned slices of the basis (up to
/// `max_piece` bytes), the payload, and random runs up to `max_piece` bytes, one in
/// four of them long enough to cut literals at 32768 bytes.
inline bytes synth_new(std::span<const std::uint8_t> basis, std::span<const std::uint8_t> payload, std::size_t bl,
                       std::size_t target, xorshift& rng, std::size_t max_piece = 65536) {
    bytes out;
    out.reserve(target + 70000);
    while (out.size() < target) {
        const std::size_t kind = rng.below(4);
        if (kind <= 1 && basis.size() > bl) {
            std::size_t from = rng.below(basis.size());
            if (kind == 0) from -= from % bl;
            const std::size_t n = std::min(basis.size() - from, 1 + rng.below(max_piece));
            out.insert(out.end(), basis.begin() + from, basis.begin() + from + n);
        } else if (kind == 2) {
            out.insert(out.end(), payload.begin(), payload.end());
            out.push_back(static_cast<std::uint8_t>(rng.next()));
        } else {
            random_run(out, 1 + rng.below(max_piece >= 40000 || rng.below(4) == 0 ? 40000 : max_piece), 24, rng);
        }
    }
    return out;
}

inline bool same(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

/// Offset of the first difference (or the shorter size), for messages.
inline std::size_t first_difference(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return i;
    return n;
}

}  // namespace rdelta::fuzz
