// file_command.cpp - the steps signature, delta and patch share (file_command.hpp).
#include "file_command.hpp"

#include "rdiff_messages.hpp"

#include <cstdio>
#include <utility>

namespace rdelta::cli {

// Opening inputs and outputs: under the name rdiff, rdiff's own lines. rdiff opens
// all files (inputs, then the output) and counts the arguments before it reads
// anything, so an input that is a folder fails only after those checks.
int report_input(const invocation& inv, const request& req, std::size_t index, const error& e) {
    const std::string path = file_arg(req, index);
    if (!inv.as_rdiff) return report(inv, e);
    const std::size_t output = req.act == action::signature ? 1 : 2;
    if (rdiff_messages::is_folder(path)) {
        for (std::size_t later = index + 1; later < output; ++later)
            if (int rc = rdiff_messages::check_input(file_arg(req, later))) return rc;
        if (int rc = rdiff_messages::check_output(file_arg(req, output), req.force)) return rc;
        if (req.files.size() > output + 1) return report_usage(inv, "Too many arguments.");
    }
    return rdiff_messages::input_failed(path, req.act == action::patch && index == 0, e);
}

int report_output_check(const invocation& inv, const std::string& path, bool force, const error& e) {
    return inv.as_rdiff ? rdiff_messages::output_refused(path, force, e) : report(inv, e);
}

int report_output_create(const invocation& inv, const std::string& path, const error& e) {
    return inv.as_rdiff ? rdiff_messages::output_failed(path, e) : report(inv, e);
}

int check_output_arg(const request& req, const invocation& inv, std::size_t index, std::string& out_path) {
    out_path = file_arg(req, index);
    if (auto ok = output_file::check(out_path, req.force); !ok)
        return report_output_check(inv, out_path, req.force, ok.err());
    if (req.files.size() > index + 1) return report_usage(inv, "Too many arguments.");
    return exit_success;
}

int check_sizes(const request& req, const invocation& inv) {
    if (req.input_size < 0 || req.output_size < 0)
        return report_usage(inv, "Buffer sizes (-I, -O) must not be negative.");
    if (req.threads < 0 || req.threads > 1024)
        return report_usage(inv, "Thread count (-j) must be 0 (all cores) to 1024.");
    if (req.max_output < 0) return report_usage(inv, "--max-output must not be negative.");
    if (req.max_strong_work < -1) return report_usage(inv, "--max-strong-work must not be negative.");
    return exit_success;
}

result<void> drive(job& j, byte_source& in, const byte_sink& out, std::size_t chunk, progress_meter* meter,
                   bool meter_output) {
    drive_options options;
    options.chunk = chunk;
    if (meter) options.progress = [&](const job_stats& s) { meter->update(meter_output ? s.out_bytes : s.in_bytes); };
    return drive_job(j, in, out, options);
}

int refuse_overwriting_inputs(const invocation& inv, const output_file& out,
                              std::initializer_list<const input_file*> inputs) {
    for (const input_file* in : inputs)
        if (out.overwrites(in->fd()))
            return report(inv, fail(errc::io_error, out.name() + ": it is also the input " + in->name() +
                                                        " (the same file or device, or storage under it): writing it "
                                                        "would destroy what is still to be read"));
    return exit_success;
}

int create_output(const request& req, const invocation& inv, const std::string& path, std::optional<output_file>& out,
                  std::initializer_list<const input_file*> inputs) {
    auto created = output_file::create(path, req.force);
    if (!created) return report_output_create(inv, path, created.err());
    if (int rc = refuse_overwriting_inputs(inv, *created, inputs)) return rc;
    out.emplace(std::move(*created));
    out->set_nocache(req.nocache);
    out->set_durable(req.durable);
    return exit_success;
}

result<compressing_writer> open_packer(const request& req, const output_file& out, byte_sink to_file) {
    const compression_options packing{req.compression, req.compression_level, static_cast<unsigned>(req.threads)};
    return compressing_writer::open(packing, out.name(), std::move(to_file));
}

int open_output(const request& req, const invocation& inv, const std::string& path, std::optional<output_file>& out,
                std::optional<compressing_writer>& packed, std::initializer_list<const input_file*> inputs) {
    if (int rc = create_output(req, inv, path, out, inputs)) return rc;
    auto writer = open_packer(req, *out, out->sink());
    if (!writer) return report(inv, writer.err());
    packed.emplace(std::move(*writer));
    return exit_success;
}

int publish(output_file& out, const invocation& inv, bool quiet) {
    if (auto committed = out.commit(); !committed) return report(inv, committed.err());
    if (!out.warning().empty() && !quiet)
        std::fprintf(stderr, "%s: warning: %s: extended attributes not kept: %s\n", inv.prog.c_str(),
                     out.name().c_str(), out.warning().c_str());
    return exit_success;
}

std::unique_ptr<progress_meter> make_meter(const request& req, const invocation& inv, const char* label,
                                           std::optional<std::uint64_t> size) {
    const std::int64_t total = size ? static_cast<std::int64_t>(*size) : -1;
    if (req.quiet) return std::make_unique<progress_meter>(false, label, total);
    const bool forced = req.progress.value_or(false);
    return std::make_unique<progress_meter>(progress_wanted(inv.as_rdiff, req.progress ? &forced : nullptr), label,
                                            total);
}

}  // namespace rdelta::cli
