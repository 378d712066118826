// error_report.cpp - words a failed job's error as librsync 2.3.2 does on its trace
// callback, so rdiff linked to this library prints the
// lines rdiff linked to librsync prints. Our library's messages say more (offsets,
// file names); where librsync has its own wording we rebuild that from the error
// code and the stream header the job saw, and otherwise pass ours on under the name
// of the librsync function that reports that case.
#include "capi.hpp"

#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <string>

namespace rdelta::capi {

namespace {

std::uint32_t head32(const rs_job& job, std::size_t at) {
    const unsigned char* p = job.head + at;
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// Our messages start with the stream's name ("delta: ..."); librsync's never do.
std::string bare(const std::string& message) {
    const auto colon = message.find(": ");
    return colon == std::string::npos ? message : message.substr(colon + 2);
}

// The number after `key` in `text`, if present.
bool number_after(const std::string& text, const char* key, long long* out, int base = 10) {
    const auto at = text.find(key);
    if (at == std::string::npos) return false;
    char* end = nullptr;
    const char* start = text.c_str() + at + std::strlen(key);
    *out = std::strtoll(start, &end, base);
    return end != start;
}

void loadsig_error(const rs_job& job, const error& e) {
    switch (e.code) {
        case errc::input_ended: return;  // librsync says only "loadsig job failed: unexpected end of input"
        case errc::corrupt:
            if (job.head_len >= 8 && static_cast<std::int32_t>(head32(job, 4)) < 1)
                log(RS_LOG_ERR, "rs_loadsig_s_blocklen", "block length of %d is bogus",
                    static_cast<std::int32_t>(head32(job, 4)));
            else if (job.head_len >= 12)
                log(RS_LOG_ERR, "rs_loadsig_s_stronglen", "strong sum length %d is implausible",
                    static_cast<std::int32_t>(head32(job, 8)));
            else
                log(RS_LOG_ERR, "rs_loadsig_s_blocklen", "%s", bare(e.message).c_str());
            return;
        case errc::bad_magic:
            if (job.head_len >= 4) return log(RS_LOG_ERR, "rs_sig_args", "invalid magic %#x", head32(job, 0));
            break;
        case errc::param_error:
            if (job.head_len >= 12) {
                const std::uint32_t magic =
                    head32(job, 0) ? head32(job, 0) : static_cast<std::uint32_t>(RS_RK_BLAKE2_SIG_MAGIC);
                return log(RS_LOG_ERR, "rs_sig_args", "invalid strong_len=%zu for magic=%#x",
                           static_cast<size_t>(head32(job, 8)), magic);
            }
            break;
        default: break;
    }
    log(RS_LOG_ERR, "rs_loadsig_s_stronglen", "%s", bare(e.message).c_str());
}

void patch_error(const rs_job& job, const error& e) {
    const std::string text = bare(e.message);
    long long v = 0;
    switch (e.code) {
        case errc::bad_magic:
            if (job.head_len >= 4)
                return log(RS_LOG_ERR, "rs_patch_s_header", "got magic number %#x rather than expected value %#x",
                           head32(job, 0), static_cast<unsigned>(RS_DELTA_MAGIC));
            break;
        case errc::corrupt:
            if (number_after(text, "unknown command byte ", &v, 16))
                return log(RS_LOG_ERR, "rs_patch_s_run", "bogus command %#04x", static_cast<unsigned>(v));
            if (text.rfind("LITERAL", 0) == 0 && number_after(text, "invalid length ", &v))
                return log(RS_LOG_ERR, "rs_patch_s_literal", "invalid length=%lld on LITERAL command", v);
            if (number_after(text, "invalid length ", &v))
                return log(RS_LOG_ERR, "rs_patch_s_copy", "invalid length=%lld on COPY command", v);
            if (number_after(text, "invalid position ", &v))
                return log(RS_LOG_ERR, "rs_patch_s_copy", "invalid position=%lld on COPY command", v);
            break;
        case errc::input_ended:
            if (text.find("LITERAL data") != std::string::npos)
                return log(RS_LOG_ERR, "rs_tube_catchup", "reached end of file while copying data");
            if (text.find("truncated") != std::string::npos) return;  // librsync: only "patch job failed"
            return log(RS_LOG_ERR, "rs_patch_s_copying", "%s", text.c_str());
        default: break;
    }
    log(RS_LOG_ERR, "rs_patch_s_run", "%s", text.c_str());
}

}  // namespace

void report_failure(const rs_job& job, const error& e) {
    if (!job.callback_failed) {
        switch (job.what) {
            case rs_job::kind::loadsig: loadsig_error(job, e); break;
            case rs_job::kind::patch: patch_error(job, e); break;
            case rs_job::kind::signature: log(RS_LOG_ERR, "rs_sig_args", "%s", e.message.c_str()); break;
            case rs_job::kind::delta:
                if (e.code == errc::input_ended && e.message.find("LITERAL data") != std::string::npos)
                    log(RS_LOG_ERR, "rs_tube_catchup", "reached end of file while copying data");
                else
                    log(RS_LOG_ERR, "rs_delta_begin", "%s", e.message.c_str());
                break;
        }
    }
    log(RS_LOG_ERR, "rs_job_complete", "%s job failed: %s", job.name(), rs_strerror(static_cast<rs_result>(e.code)));
}

}  // namespace rdelta::capi
