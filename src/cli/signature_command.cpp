// signature_command.cpp - `signature [BASIS [SIGNATURE]]`: rdiff's signature,
// arguments checked in rdiff's order (file_command.hpp) so exit codes match.
#include "signature_command.hpp"

#include "file_command.hpp"
#include "rdiff_messages.hpp"
#include "stats_printer.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/signature.hpp>

#include <cstdio>
#include <optional>
#include <span>

namespace rdelta::cli {

namespace {

// rdiff 2.3.2 cannot load signatures with larger blocks (4 x block_len overflows an int).
constexpr std::int64_t max_block_size = 536870911;

int check_hash_names(const request& req, const invocation& inv, sig_format& format) {
    if (req.hash == "blake2")
        format.strong = strong_kind::blake2;
    else if (req.hash == "md4")
        format.strong = strong_kind::md4;
    else
        return report_usage(inv, "Unknown hash algorithm '" + req.hash + "'.");
    if (req.rollsum == "rabinkarp")
        format.weak = weak_kind::rabinkarp;
    else if (req.rollsum == "rollsum")
        format.weak = weak_kind::rollsum;
    else
        return report_usage(inv, "Unknown rollsum algorithm '" + req.rollsum + "'.");
    return exit_success;
}

// Signature parameters refused. Under the name rdiff, librsync's line (the size
// as a size_t, the format as a magic number); under rdelta's, the option as given
// and the range.
int report_sig_params(const invocation& inv, const request& req, sig_format format, const error& e) {
    if (inv.as_rdiff) return rdiff_messages::sig_args_refused(e);
    if (e.code != errc::param_error || req.sum_size == 0 || req.sum_size == -1) return report(inv, e);
    const std::size_t longest = max_strong_len(format.strong);
    return report(inv, fail(errc::param_error, "--sum-size " + std::to_string(req.sum_size) + " is out of range for " +
                                                   (format.strong == strong_kind::md4 ? "MD4" : "BLAKE2") +
                                                   " sums (1 to " + std::to_string(longest) + "; 0 for " +
                                                   std::to_string(longest) + ", -1 for the shortest safe length)"));
}

}  // namespace

int signature_command(const request& req, const invocation& inv) {
    auto in = input_file::open(file_arg(req, 0));
    if (!in) return report_input(inv, req, 0, in.err());
    in->set_nocache(req.nocache);
    std::string out_path;
    if (int rc = check_output_arg(req, inv, 1, out_path)) return rc;
    sig_format format;
    if (int rc = check_hash_names(req, inv, format)) return rc;
    if (int rc = check_sizes(req, inv)) return rc;
    if (req.block_size < 0 || req.block_size > max_block_size)
        return report(
            inv, fail(errc::param_error, "block size " + std::to_string(req.block_size) + " is out of range (0 to " +
                                             std::to_string(max_block_size) + ")"));

    // rdiff sizes blocks by the whole file, even when stdin was partly read before.
    auto resolved = resolve_sig_params(
        {in->whole_size(), magic_of_format(format), static_cast<std::uint64_t>(req.block_size), req.sum_size});
    if (!resolved) return report_sig_params(inv, req, format, resolved.err());
    if (!resolved->warning.empty() && inv.as_rdiff)
        rdiff_messages::sig_args_warning(resolved->warning);
    else if (!resolved->warning.empty() && !req.quiet)
        std::fprintf(stderr, "%s: warning: %s\n", inv.prog.c_str(), resolved->warning.c_str());
    const sig_params params = resolved->params;
    if (req.verbose && !inv.as_rdiff)
        std::fprintf(stderr, "%s: signature: magic %#x, block length %u, strong sum length %u\n", inv.prog.c_str(),
                     params.magic, params.block_len, params.strong_len);

    std::optional<output_file> out;
    std::optional<compressing_writer> packed;
    if (int rc = open_output(req, inv, out_path, out, packed, {&*in})) return rc;
    stats_printer stats(req, inv);
    stats.start();
    auto meter = make_meter(req, inv, "signature", in->size());
    const job_options options{static_cast<unsigned>(req.threads)};
    job_stats done_stats;
    if (const auto size = in->size()) {
        // Random access: every thread reads and hashes its own slices.
        file_basis reader(*in);
        std::int64_t records = 0;
        const auto record_size = static_cast<std::int64_t>(params.record_size());
        auto made = make_signature_from(reader, *size, params, options, [&](std::span<const std::uint8_t> bytes) {
            records += static_cast<std::int64_t>(bytes.size()) / record_size;
            meter->update(records * params.block_len);
            return packed->write(bytes);
        });
        if (!made) return report(inv, made.err());
        in->seek_past(*size);  // as if read as a stream
        done_stats = *made;
    } else {
        auto j = make_signature_job(params, options);
        if (auto done = drive(*j, *in, packed->sink(), default_chunk, meter.get()); !done)
            return report(inv, done.err());
        done_stats = j->stats();
    }
    meter->finish();
    if (auto finished = packed->finish(); !finished) return report(inv, finished.err());
    // A signature of a file written meanwhile describes no version of it.
    if (auto same = in->check_unchanged(); !same) return report(inv, same.err());
    if (int rc = publish(*out, inv, req.quiet)) return rc;
    stats.job_done(done_stats);
    meter->summary(done_stats.in_bytes, done_stats.holes_skipped);
    stats.summary(done_stats.in_bytes, done_stats.holes_skipped);
    stats.json(done_stats);
    return exit_success;
}

}  // namespace rdelta::cli
