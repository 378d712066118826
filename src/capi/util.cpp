// util.cpp - version string and rs_strerror().
#include "c_enum.hpp"
#include "capi.hpp"

#include <rdelta/version.hpp>

// rdelta's name and version, in 15 bytes as Debian's "librsync 2.3.2": programs
// built against librsync.so.2 (Debian's rdiff among them) hold a copy relocation
// of that size, so a longer string would reach them cut, without its NUL (and the
// loader would warn on every start). No room for "(librsync 2.3.2 compatible)".
static_assert(sizeof("rdelta " RDELTA_VERSION) <= 15, "rs_librsync_version must fit Debian's 15 bytes");
char const rs_librsync_version[15] = "rdelta " RDELTA_VERSION;

char const* rs_strerror(rs_result r) {
    // A C caller may pass any int (librsync answers "unexplained problem").
    const int code = rdelta::capi::c_int(r);
    // Same table as our library's (RS_PARAM_ERROR and RS_TEST_SKIPPED are missing
    // from librsync's and read "unexplained problem"); 77 is not an errc value.
    if (code == RS_TEST_SKIPPED) return "unexplained problem";
    return rdelta::errc_text(static_cast<rdelta::errc>(code));
}
