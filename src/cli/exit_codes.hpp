// exit_codes.hpp - the CLI's exit status: rdiff's, i.e. librsync's rs_result values.
// The man page's EXIT STATUS section lists the same table (a test checks it).
#pragma once

#include <rdelta/error.hpp>

namespace rdelta::cli {

/// Exit status for an error code: the rs_result number itself, as rdiff does.
constexpr int exit_code(errc code) noexcept {
    return static_cast<int>(code);
}

inline constexpr int exit_success = 0;

/// Every status the CLI can return, for the documentation test.
inline constexpr errc documented_exit_codes[] = {
    errc::io_error,  errc::syntax_error, errc::mem_error,      errc::input_ended,
    errc::bad_magic, errc::corrupt,      errc::internal_error, errc::param_error,
};

}  // namespace rdelta::cli
