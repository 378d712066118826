// The visibility of librdelta's public API.
//
// librdelta.so is built with -fvisibility=hidden and a version script
// (src/librdelta.map): only what a public header marks RDELTA_API is exported, so
// the internals (rdelta::detail and the rest of src/) and the standard library's
// instantiations stay inside the library and can change without breaking its ABI.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
/// Marks a public class (its vtable, type_info and out-of-line members) or function
/// as exported from librdelta.so.
#define RDELTA_API __attribute__((visibility("default")))
#else
#define RDELTA_API
#endif
