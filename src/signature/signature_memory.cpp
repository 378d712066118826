// signature_memory.cpp - make_signature() and load_signature() over whole buffers.
#include "core/exception_guard.hpp"
#include "core/run_to_memory.hpp"

#include <rdelta/signature.hpp>

namespace rdelta {

using detail::run_to_memory;

result<std::vector<std::uint8_t>> make_signature(std::span<const std::uint8_t> basis, const sig_params& params,
                                                 job_options options) {
    return detail::exceptions_as_errors("signature", [&] {
        auto j = make_signature_job(params, options);
        return run_to_memory(*j, basis);
    });
}

result<signature> load_signature(std::span<const std::uint8_t> bytes, std::string name) {
    return detail::exceptions_as_errors("loadsig", [&]() -> result<signature> {
        signature sig;
        auto j = make_loadsig_job(&sig, std::move(name));
        auto done = run_to_memory(*j, bytes);
        if (!done) return std::move(done).err();
        return sig;
    });
}

}  // namespace rdelta
