// format.cpp - magic numbers and rs_sig_args()-compatible parameter resolution.
#include <rdelta/format.hpp>
#include <rdelta/signature.hpp>

#include <cinttypes>
#include <cstdio>
#include <limits>

namespace rdelta {

std::optional<sig_format> format_of_magic(std::uint32_t magic_value) noexcept {
    switch (static_cast<magic>(magic_value)) {
        case magic::md4_sig: return sig_format{weak_kind::rollsum, strong_kind::md4};
        case magic::blake2_sig: return sig_format{weak_kind::rollsum, strong_kind::blake2};
        case magic::rk_md4_sig: return sig_format{weak_kind::rabinkarp, strong_kind::md4};
        case magic::rk_blake2_sig: return sig_format{weak_kind::rabinkarp, strong_kind::blake2};
        default: return std::nullopt;
    }
}

std::uint32_t magic_of_format(sig_format format) noexcept {
    // rdiff: "MD4 or BLAKE2 magic, plus 0x10 if RabinKarp".
    std::uint32_t m = format.strong == strong_kind::md4 ? 0x72730136u : 0x72730137u;
    return format.weak == weak_kind::rabinkarp ? m + 0x10 : m;
}

std::size_t max_strong_len(strong_kind kind) noexcept {
    return kind == strong_kind::md4 ? 16 : 32;
}

namespace {

int floor_log2(std::uint64_t v) {
    int n = 0;
    while (v >>= 1) ++n;
    return n;
}

std::uint64_t floor_sqrt(std::uint64_t v) {
    std::uint64_t lo = 0, hi = std::uint64_t{1} << 32;
    while (hi - lo > 1) {  // invariant: lo*lo <= v < hi*hi
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (mid * mid <= v ? lo : hi) = mid;
    }
    return lo;
}

std::uint64_t recommended_block_len(std::optional<std::uint64_t> basis_size) {
    if (!basis_size) return stream_block_len;
    if (*basis_size <= 65536) return 256;
    return floor_sqrt(*basis_size) & ~std::uint64_t{127};
}

// Enough strong-sum bits that an accidental collision over the whole file is unlikely.
std::uint64_t minimum_strong_len(std::optional<std::uint64_t> basis_size, std::uint64_t block_len) {
    if (!basis_size) return stream_min_strong_len;
    const std::uint64_t size = *basis_size;
    return 2 + (floor_log2(size + (std::uint64_t{1} << 24)) + floor_log2(size / block_len + 1) + 7) / 8;
}

}  // namespace

result<sig_resolution> resolve_sig_params(const sig_request& request) {
    const std::uint32_t magic_value = request.magic ? request.magic : static_cast<std::uint32_t>(magic::rk_blake2_sig);
    const auto format = format_of_magic(magic_value);
    char text[200];
    if (!format) {
        std::snprintf(text, sizeof text, "invalid magic %#x", magic_value);
        return fail(errc::bad_magic, text);
    }
    // A file holds at most INT64_MAX bytes (librsync's rs_long_t): a larger size
    // is a -1 meant as "unknown" that became a number.
    if (request.basis_size &&
        *request.basis_size > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        std::snprintf(text, sizeof text, "basis size %" PRIu64 " is too large (unknown is no size)",
                      *request.basis_size);
        return fail(errc::param_error, text);
    }
    const std::uint64_t max_strong = max_strong_len(format->strong);
    const std::uint64_t block_len = request.block_len ? request.block_len : recommended_block_len(request.basis_size);
    if (block_len > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
        std::snprintf(text, sizeof text, "block length %" PRIu64 " is too large (at most %d)", block_len,
                      std::numeric_limits<std::int32_t>::max());
        return fail(errc::param_error, text);
    }
    const std::uint64_t min_strong = minimum_strong_len(request.basis_size, block_len);

    sig_resolution out;
    // librsync takes strong_len as size_t: negative values other than -1 wrap around.
    std::uint64_t strong = static_cast<std::uint64_t>(request.strong_len);
    if (request.strong_len == 0) {
        strong = max_strong;
    } else if (request.strong_len == -1) {
        strong = min_strong;
    } else if (request.basis_size && strong < min_strong) {
        std::snprintf(text, sizeof text,
                      "strong_len=%" PRIu64 " smaller than recommended minimum %" PRIu64 " for old_fsize=%" PRIu64
                      " with block_len=%" PRIu64,
                      strong, min_strong, *request.basis_size, block_len);
        out.warning = text;
    } else if (strong > max_strong) {
        std::snprintf(text, sizeof text, "invalid strong_len=%" PRIu64 " for magic=%#x", strong, magic_value);
        return fail(errc::param_error, text);
    }
    out.params = sig_params{magic_value, static_cast<std::uint32_t>(block_len), static_cast<std::uint32_t>(strong)};
    return out;
}

sig_params recommended_sig_params(std::uint64_t basis_size, sig_format format) {
    sig_params params;
    params.magic = magic_of_format(format);
    params.block_len = static_cast<std::uint32_t>(recommended_block_len(basis_size));
    params.strong_len = static_cast<std::uint32_t>(max_strong_len(format.strong));
    return params;
}

}  // namespace rdelta
