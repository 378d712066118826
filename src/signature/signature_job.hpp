// signature_job.hpp - the signature job with its pacing chosen (job_pacing.hpp).
#pragma once

#include "core/job_pacing.hpp"

#include <rdelta/job.hpp>
#include <rdelta/signature.hpp>

#include <memory>

namespace rdelta::detail {

/// make_signature_job() paced as `pacing` says; the C API asks for librsync's.
std::unique_ptr<job> make_signature_job_paced(const sig_params& params, job_options options, job_pacing pacing);

}  // namespace rdelta::detail
