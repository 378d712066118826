// signature_tap.hpp - the signature of a file made from bytes read, in order, for
// something else: a delta's scan reads the new file once and gives both its delta
// and the signature the next night's delta needs (`delta --new-signature`).
#pragma once

#include <rdelta/signature.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace rdelta::detail {

/// Byte for byte the signature make_signature_from() makes of the same file with
/// the same parameters. Memory: one block, the records of about 1 MiB of them.
class signature_tap {
public:
    signature_tap(const sig_params& params, unsigned threads, byte_sink sink);

    /// The next bytes of the file.
    result<void> data(std::span<const std::uint8_t> bytes);
    /// The next `len` bytes of the file are zeros (a hole): whole blocks of them
    /// take the zero block's record without being hashed.
    result<void> zeros(std::uint64_t len);
    /// The file ended: the last, shorter block, and what was made.
    result<job_stats> finish();

private:
    result<void> start();
    result<void> add_blocks(const std::uint8_t* p, std::size_t len);
    result<void> flush(std::size_t keep_below);

    sig_params params_;
    unsigned threads_;
    byte_sink sink_;
    std::vector<std::uint8_t> partial_;  // the block being filled, shorter than block_len
    std::vector<std::uint8_t> records_;  // not yet sent to the sink
    std::vector<std::uint8_t> digests_;
    std::vector<std::uint8_t> zero_record_;
    job_stats stats_;
    bool started_ = false;
};

}  // namespace rdelta::detail
