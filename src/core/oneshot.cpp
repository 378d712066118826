// oneshot.cpp - whole-buffer conveniences over the streaming jobs.
#include "exception_guard.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <algorithm>

namespace rdelta {

namespace {

// Feed `input` in chunks of `chunk` bytes (all at once when 0) and collect the output.
result<std::vector<std::uint8_t>> run_to_memory(job& j, std::span<const std::uint8_t> input,
                                                std::size_t chunk = 0) {
    std::vector<std::uint8_t> out;
    job_pump pump(j, [&](std::span<const std::uint8_t> bytes) -> result<void> {
        out.insert(out.end(), bytes.begin(), bytes.end());
        return {};
    }, std::size_t{64} << 10);
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

}  // namespace

result<std::vector<std::uint8_t>> make_signature(std::span<const std::uint8_t> basis,
                                                 const sig_params& params, job_options options) {
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
        return run_to_memory(*j, delta);
    });
}

}  // namespace rdelta
