// patch_memory.cpp - apply_patch() over whole buffers.
#include "core/exception_guard.hpp"
#include "core/run_to_memory.hpp"
#include "format/command_reader.hpp"

#include <rdelta/patch.hpp>

#include <algorithm>

namespace rdelta {

using detail::run_to_memory;

namespace {

// The size of the file a delta in memory makes from a basis of `basis_size`
// bytes, read from its commands (a growing vector copies its bytes again at each
// doubling and touches twice the pages). Never more than basis_size + the delta's size, so that lengths in
// the delta do not decide an allocation; a delta that makes more (COPY of one
// block many times) grows the vector past it. Errors are the patch job's to report.
std::size_t patch_output_hint(std::uint64_t basis_size, std::span<const std::uint8_t> delta) {
    const std::uint64_t cap = basis_size + delta.size();
    detail::command_reader reader(delta, {});
    if (!reader.start()) return 0;
    std::uint64_t total = 0;
    while (total < cap) {
        auto c = reader.next();
        if (!c || c->kind == detail::cmd_kind::end) break;
        if (c->kind == detail::cmd_kind::copy && (c->pos > basis_size || c->len > basis_size - c->pos)) break;
        total += c->len;
    }
    return static_cast<std::size_t>(std::min(total, cap));
}

}  // namespace

result<std::vector<std::uint8_t>> apply_patch(std::span<const std::uint8_t> basis,
                                              std::span<const std::uint8_t> delta) {
    return detail::exceptions_as_errors("patch", [&] {
        memory_basis reader(basis);
        auto j = make_patch_job(reader);
        return run_to_memory(*j, delta, 0, patch_output_hint(basis.size(), delta));
    });
}

}  // namespace rdelta
