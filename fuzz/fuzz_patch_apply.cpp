// fuzz_patch_apply.cpp - an arbitrary delta applied to a fuzzer-chosen basis.
//
// Input: delta bytes || basis || parameters (from the end: output limit, input
// and output chunk schedules, basis reader read size, basis length).
// The patch job runs through small hostile windows, reading the basis through a
// reader that returns short reads, under patch_options::max_output. Checks:
//   * the job never writes more than max_output bytes, and fails with mem_error
//     exactly when the delta would produce more;
//   * chunking changes nothing: output and error code equal those of one call
//     with large windows;
//   * a successful patch used a delta that starts with the delta magic;
//   * within the limit, apply_patch (the in-memory call) gives the same output or error.
#include "fuzz_common.hpp"

#include <rdelta/rdelta.hpp>

namespace {

using namespace rdelta;
using namespace rdelta::fuzz;

/// An in-memory basis that returns at most `max_read` bytes per read.
class short_read_basis final : public basis_reader {
public:
    short_read_basis(std::span<const std::uint8_t> bytes, std::size_t max_read) : bytes_(bytes), max_read_(max_read) {}
    result<std::size_t> read(std::uint64_t pos, std::span<std::uint8_t> out) override {
        FUZZ_CHECK(!out.empty(), "basis read of 0 bytes at %llu", static_cast<unsigned long long>(pos));
        if (pos >= bytes_.size()) return std::size_t{0};
        const std::size_t n = std::min({out.size(), max_read_, static_cast<std::size_t>(bytes_.size() - pos)});
        std::memcpy(out.data(), bytes_.data() + pos, n);
        return n;
    }
    std::optional<std::uint64_t> size() const override { return bytes_.size(); }

private:
    std::span<const std::uint8_t> bytes_;
    std::size_t max_read_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    data_producer p(data, size);
    static constexpr std::uint64_t limits[] = {0, 1, 100, 4096, 65536, 1 << 20, 4 << 20};
    std::uint64_t limit = p.pick(limits);
    const chunk_schedule in_sched = chunk_schedule::from(p);
    const chunk_schedule out_sched = chunk_schedule::from(p);
    // Tiny output windows make big outputs slow; keep those runs small.
    if (out_sched.smallest_nonzero() < 64) limit = std::min<std::uint64_t>(limit, 65536);
    const std::size_t max_read = p.boolean() ? p.value<std::size_t>(1, 64) : std::size_t{1} << 20;
    const std::size_t basis_len = p.value<std::size_t>(0, 8192);
    const auto delta_part = p.bytes(p.remaining() > basis_len ? p.remaining() - basis_len : 0);
    exact_buffer basis(p.rest());
    exact_buffer delta(delta_part);

    // Reference: one call with big windows, allowed one byte more than the limit so
    // "more than the limit" shows up as mem_error there too.
    memory_basis whole(basis.span());
    patch_options ref_opts;
    ref_opts.max_output = limit + 1;
    auto ref_job = make_patch_job(whole, ref_opts);
    const run_result ref =
        drive(*ref_job, delta.span(), chunk_schedule(1 << 20), chunk_schedule(static_cast<std::size_t>(limit + 2)));

    short_read_basis reader(basis.span(), max_read);
    patch_options opts;
    opts.delta_name = "fuzz.delta";
    opts.max_output = limit;
    auto job = make_patch_job(reader, opts);
    const run_result got = drive(*job, delta.span(), in_sched, out_sched);

    const bool over = !ref.ok ? ref.err.code == errc::mem_error || ref.out.size() > limit : ref.out.size() > limit;
    FUZZ_CHECK(got.out.size() <= limit, "patch wrote %zu bytes with max_output %llu (%s)", got.out.size(),
               static_cast<unsigned long long>(limit), got.ok ? "succeeded" : describe(got.err).c_str());
    if (over) {
        FUZZ_CHECK(!got.ok && got.err.code == errc::mem_error,
                   "output over the limit %llu must fail with mem_error: %s", static_cast<unsigned long long>(limit),
                   got.ok ? "succeeded" : describe(got.err).c_str());
        FUZZ_CHECK(same(got.out, std::span(ref.out).first(got.out.size())), "output differs from reference at %zu",
                   first_difference(got.out, ref.out));
        return 0;
    }
    // The in-memory call, which sizes its output from the delta's commands, agrees.
    const auto in_memory = apply_patch(basis.span(), delta.span());
    FUZZ_CHECK(in_memory.ok() == ref.ok, "apply_patch %s but the job %s",
               in_memory.ok() ? "succeeded" : describe(in_memory.err()).c_str(),
               ref.ok ? "succeeded" : describe(ref.err).c_str());
    if (in_memory.ok())
        FUZZ_CHECK(same(*in_memory, ref.out), "apply_patch's output (%zu bytes) differs from the job's (%zu) at %zu",
                   in_memory->size(), ref.out.size(), first_difference(*in_memory, ref.out));
    else
        FUZZ_CHECK(in_memory.err().code == ref.err.code, "apply_patch failed with %s, the job with %s",
                   describe(in_memory.err()).c_str(), describe(ref.err).c_str());
    FUZZ_CHECK(got.ok == ref.ok, "chunked patch %s but one call %s", got.ok ? "succeeded" : describe(got.err).c_str(),
               ref.ok ? "succeeded" : describe(ref.err).c_str());
    if (!got.ok) {
        FUZZ_CHECK(got.err.code == ref.err.code, "error %s, one call gave %s", describe(got.err).c_str(),
                   describe(ref.err).c_str());
        const errc c = got.err.code;
        FUZZ_CHECK(c == errc::input_ended || c == errc::corrupt || c == errc::bad_magic, "unexpected patch error %s",
                   describe(got.err).c_str());
        // Everything before the failing command was written, whatever the windows.
        FUZZ_CHECK(same(got.out, ref.out), "output before the error (%zu bytes) differs from one call (%zu) at %zu",
                   got.out.size(), ref.out.size(), first_difference(got.out, ref.out));
        return 0;
    }
    FUZZ_CHECK(same(got.out, ref.out), "chunked output (%zu bytes) differs from one call (%zu) at %zu", got.out.size(),
               ref.out.size(), first_difference(got.out, ref.out));
    FUZZ_CHECK(delta.size() >= 5 && delta.data()[0] == 0x72 && delta.data()[1] == 0x73 && delta.data()[2] == 0x02 &&
                   delta.data()[3] == 0x36,
               "a patch succeeded on a delta without magic and END");
    return 0;
}
