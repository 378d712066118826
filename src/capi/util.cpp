// util.cpp - version string and rs_strerror().
#include "capi.hpp"

// 15 bytes, as Debian's: rdiff has a copy relocation of this size.
char const rs_librsync_version[] = "librsync 2.3.2";

char const* rs_strerror(rs_result r) {
    // Same table as our library's (RS_PARAM_ERROR and RS_TEST_SKIPPED are missing
    // from librsync's and read "unexplained problem"); 77 is not an errc value.
    if (r == RS_TEST_SKIPPED) return "unexplained problem";
    return rdelta::errc_text(static_cast<rdelta::errc>(r));
}
