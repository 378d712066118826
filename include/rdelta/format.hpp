// rdelta/format.hpp - librsync file formats: magic numbers, sum kinds, parameter defaults.
// Stability: unstable until 1.0; the values are fixed by the librsync 2.3.2 file formats.
#pragma once

#include <rdelta/export.hpp>

#include <rdelta/error.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace rdelta {

/// Magic numbers at the start of signature and delta files (big-endian on disk).
enum class magic : std::uint32_t {
    md4_sig = 0x72730136,        ///< classic rollsum + MD4
    blake2_sig = 0x72730137,     ///< classic rollsum + BLAKE2b-256
    rk_md4_sig = 0x72730146,     ///< RabinKarp + MD4
    rk_blake2_sig = 0x72730147,  ///< RabinKarp + BLAKE2b-256 (the default)
    delta = 0x72730236,          ///< delta files
};

/// Weak (rolling) checksum algorithm of a signature.
enum class weak_kind { rollsum, rabinkarp };
/// Strong checksum algorithm of a signature.
enum class strong_kind { md4, blake2 };

/// The two algorithms a signature magic stands for.
struct RDELTA_API sig_format {
    weak_kind weak = weak_kind::rabinkarp;
    strong_kind strong = strong_kind::blake2;
    friend bool operator==(const sig_format&, const sig_format&) = default;
};

/// The format of a signature magic, or nothing for an unknown (or delta) magic.
RDELTA_API std::optional<sig_format> format_of_magic(std::uint32_t magic_value) noexcept;
/// The signature magic for a format.
RDELTA_API std::uint32_t magic_of_format(sig_format format) noexcept;
/// Full digest length of a strong sum: 16 for MD4, 32 for BLAKE2b-256.
RDELTA_API std::size_t max_strong_len(strong_kind kind) noexcept;

inline constexpr std::size_t max_strong_sum_length = 32;    ///< RS_MAX_STRONG_SUM_LENGTH
inline constexpr std::uint32_t stream_block_len = 2048;     ///< RS_DEFAULT_BLOCK_LEN
inline constexpr std::uint32_t stream_min_strong_len = 12;  ///< RS_DEFAULT_MIN_STRONG_LEN
inline constexpr std::size_t max_literal_run = 32768;       ///< literal cap of 2.3.2 deltas

/// Fully resolved parameters of a signature: what its 12-byte header holds.
struct RDELTA_API sig_params {
    std::uint32_t magic = static_cast<std::uint32_t>(magic::rk_blake2_sig);
    std::uint32_t block_len = stream_block_len;
    std::uint32_t strong_len = 32;

    /// The algorithms named by `magic` (magic must be valid).
    sig_format format() const noexcept { return *format_of_magic(magic); }
    /// Bytes of one block's record in the signature: its weak sum, then strong_len
    /// bytes of its strong sum.
    std::size_t record_size() const noexcept { return 4 + std::size_t{strong_len}; }
};

/// The parameters `rdelta signature` picks for a basis of `basis_size` bytes in
/// `format`: the recommended block length for that size and full strong sums.
/// (A default-constructed sig_params has rdiff's block length for streams, 2048.)
RDELTA_API sig_params recommended_sig_params(std::uint64_t basis_size, sig_format format = {});

/// What the caller asks for; zero fields mean "recommended" as in rs_sig_args().
struct RDELTA_API sig_request {
    std::optional<std::uint64_t> basis_size;  ///< size of the basis; none when unknown (a stream)
    std::uint32_t magic = 0;                  ///< 0 = RabinKarp + BLAKE2b
    std::uint64_t block_len = 0;              ///< 0 = recommended for basis_size
    std::int64_t strong_len = 0;              ///< 0 = full digest, -1 = minimum safe length
};

/// Resolved parameters plus a warning (rdiff prints it and carries on).
struct RDELTA_API sig_resolution {
    sig_params params;
    std::string warning;  ///< empty, or "strong_len=2 smaller than recommended minimum ..."
};

/// rs_sig_args(): resolve defaults exactly as librsync 2.3.2 does.
/// Errors: bad_magic for an unknown magic, param_error for a strong length above the
/// digest length or a block length that cannot be stored in a signature header.
RDELTA_API result<sig_resolution> resolve_sig_params(const sig_request& request);

}  // namespace rdelta
