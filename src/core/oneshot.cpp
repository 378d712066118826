// oneshot.cpp - whole-buffer conveniences over the streaming jobs.
#include "exception_guard.hpp"
#include "format/command_reader.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <algorithm>
#include <new>

namespace rdelta {

namespace {

// Feed `input` in chunks of `chunk` bytes (all at once when 0) and collect the
// output, with room for `expected` bytes reserved when that much memory is free.
result<std::vector<std::uint8_t>> run_to_memory(job& j, std::span<const std::uint8_t> input, std::size_t chunk = 0,
                                                std::size_t expected = 0) {
    std::vector<std::uint8_t> out;
    try {
        out.reserve(expected);
    } catch (const std::bad_alloc&) {  // only a hint: the vector grows as it must
    }
    job_pump pump(
        j,
        [&](std::span<const std::uint8_t> bytes) -> result<void> {
            out.insert(out.end(), bytes.begin(), bytes.end());
            return {};
        },
        std::size_t{64} << 10);
    const std::size_t step = chunk ? chunk : std::max<std::size_t>(input.size(), 1);
    for (std::size_t offset = 0;;) {
        const std::size_t n = std::min(step, input.size() - offset);
        const bool eof = offset + n == input.size();
        auto status = pump.push(input.subspan(offset, n), eof);
        if (!status) return std::move(status).err();
        if (*status == job_status::done) return out;
        if (eof) return fail(errc::internal_error, "a job did not finish at the end of its input");
        offset += n;
    }
}

// The size of the file a delta in memory makes from a basis of `basis_size`
// bytes, read from its commands (a growing vector copies its bytes again at each
// doubling and touches twice the pages: the in-memory patch of 64 MiB took 0.34 s
// that way). Never more than basis_size + the delta's size, so that lengths in
// the delta do not decide an allocation; a delta that makes more (COPY of one
// block many times) grows the vector past it. Errors are the patch job's to report.
std::size_t patch_output_hint(std::uint64_t basis_size, std::span<const std::uint8_t> delta) {
    const std::uint64_t cap = basis_size + delta.size();
    detail::command_reader reader(delta, {});
    if (!reader.start()) return 0;
    std::uint64_t total = 0;
    while (total < cap) {
        auto c = reader.next();
        if (!c || c->kind == detail::cmd_kind::end) break;
        if (c->kind == detail::cmd_kind::copy && (c->pos > basis_size || c->len > basis_size - c->pos)) break;
        total += c->len;
    }
    return static_cast<std::size_t>(std::min(total, cap));
}

}  // namespace

result<std::vector<std::uint8_t>> make_signature(std::span<const std::uint8_t> basis, const sig_params& params,
                                                 job_options options) {
    return detail::exceptions_as_errors("signature", [&] {
        auto j = make_signature_job(params, options);
        return run_to_memory(*j, basis);
    });
}

result<signature> load_signature(std::span<const std::uint8_t> bytes, std::string name) {
    return detail::exceptions_as_errors("loadsig", [&]() -> result<signature> {
        signature sig{sig_params{}};
        auto j = make_loadsig_job(&sig, std::move(name));
        auto done = run_to_memory(*j, bytes);
        if (!done) return std::move(done).err();
        return sig;
    });
}

result<std::vector<std::uint8_t>> make_delta(const signature& sig, std::span<const std::uint8_t> new_file,
                                             std::size_t slack_chunk, job_options options) {
    return detail::exceptions_as_errors("delta", [&] {
        auto j = make_delta_job(sig, options);
        return run_to_memory(*j, new_file, sig.block_count() == 0 ? slack_chunk : 0);
    });
}

result<std::vector<std::uint8_t>> apply_patch(std::span<const std::uint8_t> basis,
                                              std::span<const std::uint8_t> delta) {
    return detail::exceptions_as_errors("patch", [&] {
        memory_basis reader(basis);
        auto j = make_patch_job(reader);
        return run_to_memory(*j, delta, 0, patch_output_hint(basis.size(), delta));
    });
}

}  // namespace rdelta
