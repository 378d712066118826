// new_signature_tee.cpp - the new file's signature made from the stream a delta
// job reads (rdelta/delta.hpp).
#include "signature/signature_tap.hpp"

#include <rdelta/delta.hpp>

#include <new>

namespace rdelta {

new_signature_tee::new_signature_tee(byte_source& in, const new_signature_output& out, unsigned threads)
    : in_(in), tap_(std::make_unique<detail::signature_tap>(out.params, threads, out.sink)) {}

new_signature_tee::~new_signature_tee() = default;

result<std::size_t> new_signature_tee::read_full(std::span<std::uint8_t> out) {
    auto got = in_.read_full(out);
    if (!got || *got == 0) return got;
    try {
        if (auto t = tap_->data(out.first(*got)); !t) return std::move(t).err();
    } catch (const std::bad_alloc&) {
        return fail(errc::mem_error, in_.name() + ": out of memory making its signature");
    }
    return got;
}

result<job_stats> new_signature_tee::finish() {
    try {
        return tap_->finish();
    } catch (const std::bad_alloc&) {
        return fail(errc::mem_error, in_.name() + ": out of memory making its signature");
    }
}

}  // namespace rdelta
