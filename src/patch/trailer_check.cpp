// trailer_check.cpp - checking an output the caller wrote against a delta's
// checksum trailer, by reading it back (patch_options::take_trailer).
#include "core/exception_guard.hpp"
#include "format/checksum_trailer.hpp"

#include <rdelta/patch.hpp>

#include <algorithm>
#include <vector>

namespace rdelta {

namespace {

result<void> check_against_trailer(std::span<const std::uint8_t> trailer, basis_reader& output, std::uint64_t size,
                                   const std::string& delta_name) {
    if (!detail::is_trailer(trailer.data(), trailer.size()))
        return fail(errc::param_error, delta_name + ": not a checksum trailer");
    constexpr std::size_t chunk = std::size_t{1} << 20;
    std::vector<std::uint8_t> buf(chunk);
    detail::stream_checksum sum(detail::form_for(trailer.data(), trailer.size()));
    for (std::uint64_t pos = 0; pos < size;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size - pos));
        std::size_t got = 0;
        if (output.is_hole(pos, n)) {
            sum.update_zeros(n);
            pos += n;
            continue;
        }
        {
            while (got < n) {
                auto r = output.read(pos + got, {buf.data() + got, n - got});
                if (!r) return std::move(r).err();
                if (*r == 0) break;  // past the end: zeros (a final hole not yet extended)
                got += *r;
            }
        }
        std::fill(buf.begin() + static_cast<std::ptrdiff_t>(got), buf.begin() + static_cast<std::ptrdiff_t>(n), 0);
        sum.update(buf.data(), n);
        pos += n;
    }
    if (!sum.matches(trailer.data(), trailer.size()))
        return fail(errc::corrupt, delta_name + ": " + detail::trailer_mismatch(size, trailer.data()));
    return {};
}

}  // namespace

result<void> verify_trailer(std::span<const std::uint8_t> trailer, basis_reader& output, std::uint64_t size,
                            const std::string& delta_name) {
    return detail::exceptions_as_errors("checksum",
                                        [&] { return check_against_trailer(trailer, output, size, delta_name); });
}

}  // namespace rdelta
