// run_to_memory.cpp - a job run over a whole buffer (run_to_memory.hpp).
#include "run_to_memory.hpp"

#include <rdelta/drive.hpp>

#include <algorithm>
#include <new>

namespace rdelta::detail {

result<std::vector<std::uint8_t>> run_to_memory(job& j, std::span<const std::uint8_t> input, std::size_t chunk,
                                                std::size_t expected) {
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

}  // namespace rdelta::detail
