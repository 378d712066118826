// patch_command.cpp - `patch BASIS [DELTA [NEWFILE]]`: rdiff's patch, the output
// checked against the delta's checksum trailer before it is published; with
// --in-place, in_place_command.cpp updates BASIS itself.
#include "patch_command.hpp"

#include "file_command.hpp"
#include "in_place_command.hpp"
#include "stats_printer.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/patch.hpp>

#include <cinttypes>
#include <cstdio>
#include <optional>
#include <span>
#include <vector>

namespace rdelta::cli {

namespace {

// A patch reads its delta 256 KiB at a time: the literal bytes then pass from the
// read buffer to the writer's buffers while still in the core's cache (8 MiB reads
// were slower: bench/README.md, "Measurements behind design choices").
constexpr std::size_t patch_delta_chunk = std::size_t{256} << 10;

// patch --in-place IMAGE [DELTA]: in_place_command.cpp.
int patch_in_place_command(const request& req, const invocation& inv) {
    return in_place_patch(req, inv, [&] {
        if (req.files.size() > 2) return report_usage(inv, "Too many arguments (--in-place takes BASIS [DELTA]).");
        return check_sizes(req, inv);
    });
}

// Long COPYs go file to file in the kernel where that can share extents (a
// reflink costs no time and no space); on ext4 and the like the kernel copies
// page by page, slower than writing from a second thread (--kernel-copy decides).
bool kernel_copy_pays(const request& req, const output_file& out) {
    if (req.kernel_copy == copy_mode::automatic) return out.copy_may_share_extents();
    return req.kernel_copy == copy_mode::always;
}

}  // namespace

int patch_command(const request& req, const invocation& inv) {
    if (req.in_place) return patch_in_place_command(req, inv);
    auto basis_in = input_file::open(file_arg(req, 0));
    if (!basis_in) return report_input(inv, req, 0, basis_in.err());
    basis_in->set_nocache(req.nocache);
    auto delta_file = input_file::open(file_arg(req, 1));
    if (!delta_file) return report_input(inv, req, 1, delta_file.err());
    std::string out_path;
    if (int rc = check_output_arg(req, inv, 2, out_path)) return rc;
    if (int rc = check_sizes(req, inv)) return rc;

    auto out = output_file::create(out_path, req.force);
    if (!out) return report_output_create(inv, out_path, out.err());
    if (int rc = refuse_overwriting_inputs(inv, *out, {&*basis_in, &*delta_file})) return rc;
    out->set_sparse(req.sparse);
    out->set_nocache(req.nocache);
    out->set_durable(req.durable);
    stats_printer stats(req, inv);
    stats.start();
    auto delta_in = decompressing_reader::open(*delta_file);  // the delta may be compressed
    if (!delta_in) return report(inv, delta_in.err());
    // Progress counts the delta read against its size when that is known (an
    // uncompressed file), else the bytes written; the summary line counts the same.
    const std::optional<std::uint64_t> delta_size = delta_in->size();
    const bool by_delta = delta_size.value_or(0) > 0;
    auto meter =
        make_meter(req, inv, by_delta ? "patch (delta)" : "patch (output)", by_delta ? delta_size : std::nullopt);
    file_basis basis(*basis_in, file_basis::origin::file_start);  // rdiff seeks to absolute positions
    patch_options options;
    options.delta_name = delta_in->name();
    options.require_checksum = req.verify;
    if (req.max_output > 0) options.max_output = static_cast<std::uint64_t>(req.max_output);
    // A file output is checked against a checksum trailer by reading it back, so a
    // delta without one costs no hashing.
    std::vector<std::uint8_t> trailer;
    if (out->can_read_back()) {
        options.take_trailer = [&](std::span<const std::uint8_t> t) { trailer.assign(t.begin(), t.end()); };
        if (kernel_copy_pays(req, *out)) options.copy_direct = direct_file_copy(basis, *out);
    }
    // Without kernel copies the job runs on a second thread and this one writes the
    // output: copying into the page cache costs as much as reading the basis and
    // running the job. The writes stay on the thread that started where the parent
    // ran, since new page cache comes first from memory freed on the writing CPU
    // (the other way round was twice as slow: bench/README.md, "Measurements behind
    // design choices").
    const byte_sink to_file = out->sink();
    auto j = make_patch_job(basis, options);
    const auto run_job = [&](const byte_sink& sink) {
        return drive(*j, *delta_in, sink, patch_delta_chunk, meter.get(), !by_delta);
    };
    const result<void> done =
        options.copy_direct ? run_job(to_file) : background_sink::produce_on_helper(to_file, run_job);
    meter->finish();
    stats.job_done(j->stats());  // rdiff prints patch statistics even on failure
    // COPYs from a basis written meanwhile mix its versions. A checksum trailer
    // notices, but the input written while it was read is the better explanation.
    const auto unchanged_inputs = [&]() -> result<void> {
        if (auto same = basis_in->check_unchanged(); !same) return same;
        return delta_file->check_unchanged();
    };
    if (!done) {
        if (done.err().code == errc::corrupt)
            if (auto same = unchanged_inputs(); !same) return report(inv, same.err());
        return report(inv, done.err());
    }
    if (auto same = unchanged_inputs(); !same) return report(inv, same.err());
    if (!trailer.empty()) {
        written_output written(*out);
        auto checked =
            verify_trailer(trailer, written, static_cast<std::uint64_t>(j->stats().out_bytes), options.delta_name);
        if (!checked) return report(inv, checked.err());
    }
    if (int rc = publish(*out, inv, req.quiet)) return rc;
    if (req.verify && !req.quiet)
        std::fprintf(stderr, "%s: %s: verified %" PRId64 " bytes against the delta's XXH3-128 checksum\n",
                     inv.prog.c_str(), out->name().c_str(), j->stats().out_bytes);
    meter->summary(by_delta ? j->stats().in_bytes : j->stats().out_bytes);
    stats.summary(j->stats().in_bytes);
    stats.json(j->stats());
    return exit_success;
}

}  // namespace rdelta::cli
