// exception_guard.cpp - exceptions turned into error values (exception_guard.hpp).
#include "exception_guard.hpp"

#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

namespace rdelta::detail {

namespace {

error classify(const char* what) {
    try {
        throw;
    } catch (const std::bad_alloc&) {
        return fail(errc::mem_error, std::string(what) + ": out of memory");
    } catch (const std::length_error&) {
        return fail(errc::mem_error, std::string(what) + ": out of memory (a buffer would exceed its maximum size)");
    } catch (const std::system_error& e) {
        return fail(errc::mem_error, std::string(what) + ": out of memory (cannot start a thread: " + e.what() + ")");
    } catch (const std::exception& e) {
        return fail(errc::internal_error, std::string(what) + ": unexpected exception: " + e.what());
    } catch (...) {
        return fail(errc::internal_error, std::string(what) + ": unexpected exception");
    }
}

class throwing_job_guard final : public job {
public:
    explicit throwing_job_guard(std::unique_ptr<job> inner) : inner_(std::move(inner)) {}
    result<job_status> iterate(buffers& io) override {
        if (failed_) {
            try {
                return *failed_;
            } catch (...) {
                return error{errc::mem_error, "out of memory"};
            }
        }
        try {
            return inner_->iterate(io);
        } catch (...) {
            error e = error_from_current_exception(inner_->stats().op);
            try {
                failed_ = e;
            } catch (...) {  // cannot keep a copy: later calls report the short form
                failed_.reset();
            }
            return e;
        }
    }
    const job_stats& stats() const noexcept override { return inner_->stats(); }

private:
    std::unique_ptr<job> inner_;
    std::optional<error> failed_;
};

class failed_job final : public job {
public:
    explicit failed_job(error e) : error_(std::move(e)) {}
    result<job_status> iterate(buffers&) override { return error_; }
    const job_stats& stats() const noexcept override { return stats_; }

private:
    error error_;
    job_stats stats_;
};

}  // namespace

std::unique_ptr<job> make_failed_job(error e) {
    return std::make_unique<failed_job>(std::move(e));
}

error error_from_current_exception(const char* what) noexcept {
    try {
        return classify(what);
    } catch (...) {  // the message itself could not be allocated (fits the small-string buffer)
        return error{errc::mem_error, "out of memory"};
    }
}

std::unique_ptr<job> guard_job(std::unique_ptr<job> inner) {
    return std::make_unique<throwing_job_guard>(std::move(inner));
}

std::unique_ptr<job> failed_job_for_current_exception(const char* what) noexcept {
    error e = error_from_current_exception(what);
    try {
        return std::make_unique<failed_job>(std::move(e));
    } catch (...) {
        return nullptr;
    }
}

}  // namespace rdelta::detail
