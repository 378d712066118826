// delta_memory.cpp - make_delta() over a whole buffer.
#include "core/exception_guard.hpp"
#include "core/run_to_memory.hpp"

#include <rdelta/delta.hpp>

namespace rdelta {

using detail::run_to_memory;

result<std::vector<std::uint8_t>> make_delta(const signature& sig, std::span<const std::uint8_t> new_file,
                                             std::size_t slack_chunk, delta_options options) {
    return detail::exceptions_as_errors("delta", [&] {
        auto j = make_delta_job(sig, options);
        return run_to_memory(*j, new_file, sig.block_count() == 0 ? slack_chunk : 0);
    });
}

}  // namespace rdelta
