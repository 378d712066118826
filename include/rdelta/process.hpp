// rdelta/process.hpp - process set-up for a tool built on the file layer: cleanup on
// signals (no temporary output left behind), descriptors 0-2 kept taken.
// Stability: unstable until 1.0.
#pragma once

#include <rdelta/export.hpp>

namespace rdelta {

/// Remove the pending temporary output, then die of the same signal, when SIGINT,
/// SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM, SIGXFSZ, SIGUSR1 or SIGUSR2 arrives.
/// A signal whose disposition is SIG_IGN (inherited from nohup, `trap '' PIPE`)
/// stays ignored.
RDELTA_API void install_cleanup_handlers();

/// Open /dev/null on each of descriptors 0, 1 and 2 that is closed, so that no file
/// opened later takes one of their numbers (an output on fd 2 would receive the
/// messages meant for standard error). A closed 0 or 1 stays unusable: reading
/// fd 0 or writing fd 1 then fails with EBADF, as on the closed descriptor (fd 0
/// is opened write-only, fd 1 read-only); fd 2 is writable. Call first thing in
/// main(); returns false when one could not be opened.
RDELTA_API bool ensure_standard_fds_open() noexcept;

}  // namespace rdelta
