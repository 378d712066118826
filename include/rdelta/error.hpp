// rdelta/error.hpp - error codes and the result<T> type used by every fallible call.
//
// The library does not throw: each fallible function returns result<T>, which holds
// either a value or an `error` (a code plus a one-line human readable message).
// The numeric values of `errc` equal librsync's rs_result values, which are also
// the exit codes of rdiff; the CLI exits with them unchanged.
// Stability: unstable until 1.0 (the file formats are fixed: librsync 2.3.2's).
#pragma once

#include <rdelta/export.hpp>

#include <string>
#include <system_error>
#include <utility>
#include <variant>

namespace rdelta {

/// librsync-compatible result codes (rs_result). Values are ABI and exit codes.
enum class errc : int {
    ok = 0,                ///< success (RS_DONE)
    blocked = 1,           ///< a job needs more input or output space (RS_BLOCKED)
    running = 2,           ///< a job is still running (RS_RUNNING)
    io_error = 100,        ///< reading or writing a file failed (RS_IO_ERROR)
    syntax_error = 101,    ///< bad command line (RS_SYNTAX_ERROR)
    mem_error = 102,       ///< out of memory or over a configured limit (RS_MEM_ERROR)
    input_ended = 103,     ///< truncated input, or COPY past the basis end (RS_INPUT_ENDED)
    bad_magic = 104,       ///< unknown magic number (RS_BAD_MAGIC)
    unimplemented = 105,   ///< unsupported case (RS_UNIMPLEMENTED)
    corrupt = 106,         ///< malformed signature or delta (RS_CORRUPT)
    internal_error = 107,  ///< library misuse or a bug (RS_INTERNAL_ERROR)
    param_error = 108,     ///< invalid parameter, e.g. strong length (RS_PARAM_ERROR)
};

/// librsync's rs_strerror() text for a code ("unexplained problem" for unknown ones).
RDELTA_API const char* errc_text(errc code) noexcept;

/// The category of errc values as std::error_code ("rdelta"; messages are errc_text()).
RDELTA_API const std::error_category& rdelta_category() noexcept;

/// An errc as a std::error_code: `std::error_code ec = errc::corrupt;` works too.
RDELTA_API std::error_code make_error_code(errc code) noexcept;

/// What the caller can do about an error, for a program to advise in its own
/// words (the message states the facts only; a tool names its command or option).
enum class remedy : unsigned char {
    none,
    recover,           ///< `subject` was left half updated: recover it (recover_image(), recover_in_place())
    allow_replace,     ///< `subject` exists: ask for it to be replaced (output_file's `force`)
    no_journal,        ///< no undo journal can be made there: patch without one (in_place_options::journal)
    in_place_safe,     ///< the delta reads what an in-place patch overwrites: make it in-place-safe
    allow_unrecorded,  ///< a delta without trailer, on a file that cannot record it: apply it anyway
};

/// An error: a code and a one-line message saying what is wrong (no trailing newline).
struct RDELTA_API error {
    errc code = errc::internal_error;
    std::string message;
    /// What can be done about it, and the file that concerns ("" when none).
    remedy fix = remedy::none;
    std::string subject;
    /// The code as a std::error_code.
    std::error_code error_code() const noexcept { return make_error_code(code); }
};

/// Make an error value; `return fail(errc::corrupt, "...")` converts to any result<T>.
inline error fail(errc code, std::string message) {
    return error{code, std::move(message), remedy::none, {}};
}

/// The same, with what the caller can do about it and the file that concerns.
inline error fail(errc code, std::string message, remedy fix, std::string subject = {}) {
    return error{code, std::move(message), fix, std::move(subject)};
}

/// Either a T or an error.
template <class T>
class [[nodiscard]] result {
public:
    result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    result(error e) : v_(std::in_place_index<1>, std::move(e)) {}

    /// True when a value is held.
    bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }

    /// The value; only valid when ok().
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    /// The error; only valid when !ok().
    const error& err() const& { return std::get<1>(v_); }
    error&& err() && { return std::get<1>(std::move(v_)); }

private:
    std::variant<T, error> v_;
};

/// result<void>: success or an error.
template <>
class [[nodiscard]] result<void> {
public:
    result() = default;
    result(error e) : err_(std::move(e)), failed_(true) {}

    bool ok() const noexcept { return !failed_; }
    explicit operator bool() const noexcept { return ok(); }
    const error& err() const& { return err_; }
    error&& err() && { return std::move(err_); }

private:
    error err_;
    bool failed_ = false;
};

}  // namespace rdelta

/// errc converts implicitly to std::error_code.
template <>
struct std::is_error_code_enum<rdelta::errc> : std::true_type {};
