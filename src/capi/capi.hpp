// capi.hpp - internals shared by the librsync-compatible C API (librsync.so.2).
//
// Every file here includes Debian's own <librsync.h>, so the types, the extern "C"
// linkage and the default visibility of the 38 exported names come from the real
// header: the ABI cannot drift from librsync 2.3.2's. Everything else is compiled
// with hidden visibility, and a version script hides the static rdelta library.
#pragma once

#include <librsync.h>

#include <rdelta/error.hpp>
#include <rdelta/job.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <system_error>

// The opaque rs_signature_t: our loaded signature plus librsync's match counters,
// which librsync keeps in the signature's hash table across delta jobs.
struct rs_signature {
    rdelta::signature sig;
    std::int64_t searches = 0, matches = 0, weak_compares = 0, strong_calcs = 0;
};

// The opaque rs_job_t: one of our streaming jobs plus what librsync's job carries
// (statistics, the name used in "<name> job failed" lines).
struct rs_job {
    enum class kind { signature, loadsig, delta, patch };

    kind what = kind::signature;
    std::unique_ptr<rdelta::job> impl;
    std::unique_ptr<rdelta::basis_reader> basis;  // patch: adapter over the copy callback
    rs_signature* sig = nullptr;                  // loadsig target, or the delta's signature
    rs_stats_t stats{};
    // Set by the whole-file functions: their file buffers count in/out bytes, as
    // librsync's do (rdiff -s prints those counts).
    bool io_counted_by_buffers = false;
    // Set when the copy callback failed: it has logged its own message already.
    bool callback_failed = false;
    // The first input bytes (magic and header), to word errors as librsync does.
    unsigned char head[12] = {};
    std::size_t head_len = 0;
    // Match counters of the signature before this delta job started.
    std::int64_t base_searches = 0, base_matches = 0, base_weak = 0, base_calcs = 0;

    const char* name() const noexcept;
};

namespace rdelta::capi {

/// Flag for log(): print without the "(function) " part, like librsync's RS_LOG_NONAME.
inline constexpr int log_noname = 8;

/// librsync's logger: "librsync: <severity>(<fn>) <message>\n" to the trace callback,
/// if `level` (low 3 bits) is at or below the trace level.
void log(int level, const char* fn, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

/// malloc() or, like librsync's rs_alloc(), log a CRITICAL line and abort().
void* alloc_or_abort(std::size_t size, const char* what);

/// Run `body` (an rs_result) so that no exception unwinds into a C caller: one
/// (std::bad_alloc, a thread that could not be started) is logged under `fn` and
/// becomes RS_MEM_ERROR (RS_INTERNAL_ERROR when it is not about resources).
template <class Body>
rs_result guarded(const char* fn, Body&& body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        log(RS_LOG_ERR, fn, "out of memory");
        return RS_MEM_ERROR;
    } catch (const std::length_error&) {
        log(RS_LOG_ERR, fn, "out of memory");
        return RS_MEM_ERROR;
    } catch (const std::system_error& e) {
        log(RS_LOG_ERR, fn, "out of memory: cannot start a thread: %s", e.what());
        return RS_MEM_ERROR;
    } catch (...) {
        log(RS_LOG_ERR, fn, "internal error: unexpected exception");
        return RS_INTERNAL_ERROR;
    }
}

/// A new job from `make`, or NULL (logged) when memory runs out making it.
template <class Make>
rs_job* guarded_begin(const char* fn, Make&& make) noexcept {
    rs_job* job = nullptr;
    guarded(fn, [&] {
        job = make();
        return RS_DONE;
    });
    return job;
}

/// Log librsync's lines for a failed job: the specific error (in librsync's words
/// where it has any), then "<name> job failed: <rs_strerror text>".
void report_failure(const rs_job& job, const rdelta::error& e);

}  // namespace rdelta::capi
