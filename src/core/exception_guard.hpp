// exception_guard.hpp - the library's edge for exceptions: what the standard
// library or Boost throws inside (std::bad_alloc, a thread that cannot start)
// becomes an error value before it reaches a caller of the public API.
//
// The core reports its own failures as result<T>; exceptions come only from
// allocation, thread creation and callers' callbacks. Each public entry point
// runs its body through exceptions_as_errors(), and every job the factories
// return is wrapped so that iterate() never throws.
#pragma once

#include <rdelta/error.hpp>
#include <rdelta/job.hpp>

#include <memory>

namespace rdelta::detail {

/// The error for the exception being handled; call only inside a catch block.
/// std::bad_alloc, std::length_error and std::system_error (a thread that could
/// not be started) are mem_error, anything else internal_error. `what` prefixes
/// the message; when even that cannot be allocated the message is "out of memory".
error error_from_current_exception(const char* what) noexcept;

/// body(), or the error for what it threw.
template <class Body>
auto exceptions_as_errors(const char* what, Body&& body) noexcept -> decltype(body()) {
    try {
        return body();
    } catch (...) {
        return error_from_current_exception(what);
    }
}

/// A job whose iterate() never throws: an exception from `inner` becomes its
/// error, returned again by every later call. Throws std::bad_alloc itself.
std::unique_ptr<job> guard_job(std::unique_ptr<job> inner);

/// A job whose every iterate() returns `e` (a job that could not be made).
std::unique_ptr<job> make_failed_job(error e);

/// A job that fails at once with the error for the exception being handled (or
/// nullptr when not even that can be allocated); call only inside a catch block.
std::unique_ptr<job> failed_job_for_current_exception(const char* what) noexcept;

/// make() wrapped by guard_job(), or a failed job when making it threw.
template <class Make>
std::unique_ptr<job> make_guarded_job(const char* what, Make&& make) noexcept {
    try {
        return guard_job(make());
    } catch (...) {
        return failed_job_for_current_exception(what);
    }
}

}  // namespace rdelta::detail
