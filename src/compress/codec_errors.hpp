// codec_errors.hpp - the edge where the codecs' exceptions become error values.
//
// Boost.iostreams' filters report failures by throwing (gzip_error, bzip2_error,
// zstd_error, std::ios_base::failure), and so does the standard library when
// memory or threads run out. Our own devices, which Boost calls, fail by keeping
// their error and throwing `passed_on` through Boost's code; here it becomes that
// same error again.
#pragma once

#include <rdelta/compression.hpp>

#include <optional>
#include <string>
#include <type_traits>

namespace rdelta::detail {

/// Thrown through Boost's code when our sink or source failed; the error waits
/// in the `kept` slot given to codec_guarded().
struct passed_on {};

/// What our device's own step gave, or (on failure) its error kept in `kept`
/// and passed_on thrown: the one way our devices fail inside Boost's calls.
template <class T>
T value_or_pass_on(result<T> r, std::optional<error>& kept) {
    if (!r) {
        kept = std::move(r).err();
        throw passed_on{};
    }
    if constexpr (!std::is_void_v<T>) return std::move(*r);
}

enum class direction { compressing, decompressing };

/// What a codec said was wrong.
struct codec_complaint {
    bool truncated = false;      // the data ends too early (else it is corrupt)
    std::string text;            // the codec's own words
    bool out_of_memory = false;  // the codec could not allocate: a memory error, not bad data
};

/// A codec's complaint as an error: about the data when reading it (input_ended
/// or corrupt), a failure of ours when writing it (internal_error).
error codec_failure(codec c, const std::string& name, direction d, const codec_complaint& complaint);

/// The error for the exception being handled; call only inside a catch block.
error codec_error_from_current_exception(codec c, const std::string& name, std::optional<error>& kept,
                                         direction d) noexcept;

/// body(), or the error for what it threw.
template <class Body>
auto codec_guarded(codec c, const std::string& name, std::optional<error>& kept, direction d, Body&& body) noexcept
    -> decltype(body()) {
    try {
        return body();
    } catch (...) {
        return codec_error_from_current_exception(c, name, kept, d);
    }
}

}  // namespace rdelta::detail
