// delta_job.hpp - the scanning delta job as seen by drivers that know where the
// new file's holes are (delta_file.cpp).
#pragma once

#include <rdelta/job.hpp>
#include <rdelta/signature.hpp>

#include <cstdint>
#include <memory>

namespace rdelta::detail {

/// A delta job that can also be told that the next input bytes are zeros.
class zero_aware_delta_job : public job {
public:
    /// The next `n` input bytes are zeros: encoded exactly as scanning them would
    /// encode them, without scanning (O(n / block length) unless the zeros become
    /// literal data). Output is queued: drain it with iterate() between calls, so
    /// pass holes in pieces to keep the queue small.
    virtual void feed_zeros(std::uint64_t n) = 0;
};

/// The scanning job for a signature with blocks. It uses the signature's index
/// when that was built with the duplicate policy `options.in_place_safe` needs, and
/// builds (and owns) one otherwise.
result<std::unique_ptr<zero_aware_delta_job>> make_scanning_delta_job(const signature& sig, job_options options);

}  // namespace rdelta::detail
