// read_whole.cpp - an input read whole into memory (a delta applied in place).
#include <rdelta/io.hpp>

#include <cstdint>
#include <new>
#include <stdexcept>

namespace rdelta {

namespace {

result<std::vector<std::uint8_t>> read_all_of(byte_source& in) {
    std::vector<std::uint8_t> bytes;
    if (const auto size = in.size(); size && *size <= SIZE_MAX) bytes.reserve(static_cast<std::size_t>(*size));
    std::uint8_t buf[1 << 16];
    for (;;) {
        auto got = in.read_full(buf);
        if (!got) return std::move(got).err();
        bytes.insert(bytes.end(), buf, buf + *got);
        if (*got < sizeof buf) return bytes;
    }
}

}  // namespace

// An input larger than memory is an error value, not an exception.
result<std::vector<std::uint8_t>> read_whole(byte_source& in) {
    try {
        return read_all_of(in);
    } catch (const std::bad_alloc&) {
        return fail(errc::mem_error, in.name() + ": out of memory reading it whole");
    } catch (const std::length_error&) {
        return fail(errc::mem_error, in.name() + ": too large to hold in memory");
    }
}

}  // namespace rdelta
