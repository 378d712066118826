// c_enum.hpp - rs_result and rs_magic_number values that came from C code, read as
// the ints they are.
//
// A C enum holds any int: a client's callback may return a code of its own beyond
// rs_result's enumerators (librsync hands it back to the caller as it is), and a
// caller may pass any int as an rs_result to rs_strerror or as a magic number to
// rs_sig_begin. Loading such a value as the C++ enum is undefined (UBSan's enum
// check), so these values are read through their bytes.
#pragma once

#include <librsync.h>

#include <cstring>

namespace rdelta::capi {

/// The int a C caller's enum value holds.
template <class CEnum>
int c_int(const CEnum& value) noexcept {
    static_assert(sizeof(CEnum) == sizeof(int), "a C enum of these values is an int");
    int code = 0;
    std::memcpy(&code, &value, sizeof code);
    return code;
}

/// Calls a client's callback and returns its result as an int.
template <class Callback, class... Args>
int call_client(Callback* callback, Args... args) {
    const rs_result value = callback(args...);
    return c_int(value);
}

/// A code handed back to C as librsync does: converted, never loaded as the enum.
inline rs_result as_result(int code) noexcept {
    return static_cast<rs_result>(code);
}

}  // namespace rdelta::capi
