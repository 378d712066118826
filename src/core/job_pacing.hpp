// job_pacing.hpp - when a job takes input, against the output it still holds.
#pragma once

namespace rdelta::detail {

/// How a signature or delta job paces its input (the C API asks for librsync's).
enum class job_pacing {
    /// Take all the input offered and queue the output it makes: the library's jobs,
    /// which gather small pieces so that the kernels and the threads get work enough.
    batched,
    /// librsync 2.3.2's rs_job_iter, call by call: output held from earlier calls
    /// goes out first, and input is taken only once none is left, a step at a time
    /// (a signature block per record the output window holds, and one more; a delta
    /// all the input offered; a LITERAL of an empty signature's delta as it goes
    /// out). A client that offers a block per call and waits for output whenever a
    /// call gives none sees, on each call, what librsync's job does.
    librsync,
};

}  // namespace rdelta::detail
