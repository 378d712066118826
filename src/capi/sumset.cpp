// sumset.cpp - signature parameters (rs_sig_args) and the loaded signature
// (rs_signature_t = our rdelta::signature): index building, freeing, dumping.
#include "c_enum.hpp"
#include "capi.hpp"
#include "checksum/weak_sum.hpp"

#include <rdelta/format.hpp>

#include <cinttypes>
#include <climits>
#include <new>

const int RS_MD4_SUM_LENGTH = 16;
const int RS_BLAKE2_SUM_LENGTH = 32;

rs_result rs_sig_args(rs_long_t old_fsize, rs_magic_number* magic, size_t* block_len, size_t* strong_len) {
    return rdelta::capi::guarded("rs_sig_args", [&]() -> rs_result {
        using rdelta::capi::log;
        // librsync never range-checks block_len here: a huge one fails later, when the
        // whole-file functions allocate 4 x block_len. Our resolver rejects lengths a
        // header cannot hold, so resolve with a clamped one and keep the caller's.
        const bool huge_block = *block_len > static_cast<size_t>(INT_MAX);
        rdelta::sig_request req;
        if (old_fsize >= 0) req.basis_size = static_cast<std::uint64_t>(old_fsize);
        req.magic = static_cast<std::uint32_t>(rdelta::capi::c_int(*magic));
        req.block_len = huge_block ? static_cast<std::uint64_t>(INT_MAX) : *block_len;
        req.strong_len = static_cast<std::int64_t>(*strong_len);  // (size_t)-1 means "minimum"
        auto resolved = rdelta::resolve_sig_params(req);
        if (!resolved) {
            const auto& e = resolved.err();
            if (e.code == rdelta::errc::param_error) {
                // librsync has stored the defaulted magic and block length by then.
                req.strong_len = 0;
                if (auto defaults = rdelta::resolve_sig_params(req)) {
                    *magic = static_cast<rs_magic_number>(defaults->params.magic);
                    if (!huge_block) *block_len = defaults->params.block_len;
                }
            }
            log(RS_LOG_ERR, "rs_sig_args", "%s", e.message.c_str());
            return static_cast<rs_result>(e.code);
        }
        if (!resolved->warning.empty()) log(RS_LOG_WARNING, "rs_sig_args", "%s", resolved->warning.c_str());
        *magic = static_cast<rs_magic_number>(resolved->params.magic);
        if (!huge_block) *block_len = resolved->params.block_len;
        *strong_len = resolved->params.strong_len;
        return RS_DONE;
    });
}

rs_result rs_build_hash_table(rs_signature_t* sums) {
    // build_index() reports running out of memory as an error value.
    if (!sums->sig.build_index()) return RS_MEM_ERROR;
    // librsync resets the hash table's counters when it builds it.
    sums->searches = sums->matches = sums->weak_compares = sums->strong_calcs = 0;
    return RS_DONE;
}

void rs_free_sumset(rs_signature_t* psums) {
    delete psums;
}

void rs_signature_log_stats(rs_signature_t const* sig) {
    // Ratios are computed at run time on purpose: an empty signature (no searches)
    // prints "-nan" like librsync's 0.0/0.0 does.
    const double finds = static_cast<double>(sig->searches);
    rdelta::capi::log(RS_LOG_INFO | rdelta::capi::log_noname, nullptr,
                      "match statistics: signature[%" PRId64 " searches, %" PRId64 " (%.3f%%) matches, %" PRId64
                      " (%.3fx) weak sum compares, %" PRId64 " (%.3f%%) strong sum compares, %" PRId64
                      " (%.3f%%) strong sum calcs]",
                      sig->searches, sig->matches, 100.0 * static_cast<double>(sig->matches) / finds,
                      sig->weak_compares, static_cast<double>(sig->weak_compares) / finds, sig->strong_calcs,
                      100.0 * static_cast<double>(sig->strong_calcs) / finds, sig->strong_calcs,
                      100.0 * static_cast<double>(sig->strong_calcs) / finds);
}

void rs_sumset_dump(rs_signature_t const* sums) {
    using rdelta::capi::log;
    const auto& s = sums->sig;
    const auto& p = s.params();
    log(RS_LOG_INFO | rdelta::capi::log_noname, nullptr, "sumset info: magic=%#x, block_len=%d, block_num=%d", p.magic,
        static_cast<int>(p.block_len), static_cast<int>(s.block_count()));
    // librsync keeps rollsum weak sums through the MurmurHash3 finaliser in memory,
    // and shows them that way.
    const bool rollsum = p.format().weak == rdelta::weak_kind::rollsum;
    char strong_hex[RS_MAX_STRONG_SUM_LENGTH * 3];
    for (size_t i = 0; i < s.block_count(); ++i) {
        const auto strong = s.strong_sum(i);
        rs_hexify(strong_hex, strong.data(), static_cast<int>(strong.size()));
        const std::uint32_t weak = rollsum ? rdelta::detail::mix32(s.weak_sum(i)) : s.weak_sum(i);
        log(RS_LOG_INFO | rdelta::capi::log_noname, nullptr, "sum %6d: weak=%08x, strong=%s", static_cast<int>(i), weak,
            strong_hex);
    }
}
