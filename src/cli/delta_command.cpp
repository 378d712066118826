// delta_command.cpp - `delta SIGNATURE [NEWFILE [DELTA]]`: rdiff's delta, with
// rdelta's checksum trailer (unless --no-checksum or under the name rdiff) and
// --new-signature (the new file's signature from the same read).
#include "delta_command.hpp"

#include "file_command.hpp"
#include "stats_format.hpp"
#include "stats_printer.hpp"

#include <rdelta/basis_root.hpp>
#include <rdelta/compression.hpp>
#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/signature.hpp>

#include <cstdio>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

namespace rdelta::cli {

namespace {

// A regular file or block device: holes are not read (make_delta_from).
result<job_stats> delta_of_file(const signature& sig, input_file& new_in, delta_options options, const byte_sink& out,
                                progress_meter& meter, const new_signature_output* new_sig) {
    file_basis reader(new_in);
    const std::uint64_t size = new_in.size().value_or(0);
    auto made = make_delta_from(
        reader, size, sig, options, out, [&](std::uint64_t done) { meter.update(static_cast<std::int64_t>(done)); },
        new_sig);
    if (made) new_in.seek_past(size);  // as if read as a stream
    return made;
}

// A pipe, or an empty signature with -I, whose delta depends on the input chunking:
// rdiff reads the new file in chunks of the block length, or -I.
result<job_stats> delta_of_stream(const signature& sig, input_file& new_in, delta_options options, const request& req,
                                  const byte_sink& out, progress_meter& meter, const new_signature_output* new_sig) {
    auto j = make_delta_job(sig, options);
    const std::size_t chunk = sig.block_count() > 0 ? delta_chunk_size(sig, options.threads)
                              : req.input_size > 0  ? static_cast<std::size_t>(req.input_size)
                                                    : sig.params().block_len;
    if (!new_sig) {
        if (auto done = drive(*j, new_in, out, chunk, &meter); !done) return std::move(done).err();
        return j->stats();
    }
    new_signature_tee tee(new_in, *new_sig, options.threads);
    if (auto done = drive(*j, tee, out, chunk, &meter); !done) return std::move(done).err();
    if (auto signed_ = tee.finish(); !signed_) return std::move(signed_).err();
    return j->stats();
}

// --new-signature FILE: the new file's signature, published once the delta is.
struct new_signature_file {
    std::optional<output_file> out;
    std::optional<compressing_writer> packed;
    std::optional<new_signature_output> output;
};

int open_new_signature(const request& req, const invocation& inv, const signature& sig, const std::string& delta_path,
                       new_signature_file& f, std::initializer_list<const input_file*> inputs) {
    if (req.new_signature.empty()) return exit_success;
    if (is_std_stream(req.new_signature) && is_std_stream(delta_path))
        return report_usage(inv, "--new-signature - and the delta cannot both go to standard output.");
    if (int rc = open_output(req, inv, req.new_signature, f.out, f.packed, inputs)) return rc;
    f.output = new_signature_output{sig.params(), [&f](std::span<const std::uint8_t> b) { return f.packed->write(b); }};
    return exit_success;
}

// The root of the basis the delta names: --basis-root, else the one kept beside the
// signature file for exactly its bytes (`delta --new-signature` keeps it).
std::optional<chunk_root> basis_root_for(const request& req, const std::string& sig_path) {
    if (!req.basis_root.empty()) return root_from_hex(req.basis_root);
    if (is_std_stream(sig_path)) return std::nullopt;
    return read_basis_root(sig_path);
}

// The last bytes a delta ends with: its trailer.
struct delta_tail {
    std::vector<std::uint8_t> bytes;
    byte_sink keeping(byte_sink to) {
        return [this, to = std::move(to)](std::span<const std::uint8_t> b) -> result<void> {
            bytes.insert(bytes.end(), b.begin(), b.end());
            const std::size_t keep = 64;
            if (bytes.size() > keep) bytes.erase(bytes.begin(), bytes.end() - static_cast<std::ptrdiff_t>(keep));
            return to(b);
        };
    }
};

// --new-signature FILE: the new file's root, kept beside it for the next night's
// delta. Losing it only loses that check, so a failure is a warning.
void keep_new_root(const request& req, const invocation& inv, const delta_tail& tail, const output_file& sig) {
    if (!sig.can_read_back()) return;  // a stream (a pipe, /dev/fd/N): its reader keeps what it needs
    const auto root = delta_output_root(tail.bytes);
    if (!root) return;
    if (auto kept = write_basis_root(req.new_signature, *root, req.durable); !kept && !req.quiet)
        std::fprintf(stderr, "%s: warning: %s: the new file's root was not kept: %s\n", inv.prog.c_str(),
                     req.new_signature.c_str(), kept.err().message.c_str());
}
}  // namespace

int delta_command(const request& req, const invocation& inv) {
    auto sig_file = input_file::open(file_arg(req, 0));
    if (!sig_file) return report_input(inv, req, 0, sig_file.err());
    auto new_in = input_file::open(file_arg(req, 1));
    if (!new_in) return report_input(inv, req, 1, new_in.err());
    new_in->set_nocache(req.nocache);
    std::string out_path;
    if (int rc = check_output_arg(req, inv, 2, out_path)) return rc;
    if (int rc = check_sizes(req, inv)) return rc;

    stats_printer stats(req, inv);
    stats.start();
    auto sig_in = decompressing_reader::open(*sig_file);  // the signature may be compressed
    if (!sig_in) return report(inv, sig_in.err());
    signature sig;
    // Under its own name, a delta or text file given as the signature is called what it
    // is (with rdiff's exit code).
    auto loader = make_loadsig_job(&sig, sig_in->name(), sig_in->size(), !inv.as_rdiff);
    if (auto loaded = drive(*loader, *sig_in, {}, default_chunk); !loaded) {
        const error& e = loaded.err();
        // Arguments in the wrong order are the usual cause: say which comes first.
        if (!inv.as_rdiff && (e.code == errc::bad_magic || e.code == errc::corrupt))
            return report(inv, fail(e.code, e.message + "; the first argument must be a signature (usage: " + inv.prog +
                                                " delta SIGNATURE [NEWFILE [DELTA]])"));
        return report(inv, e);
    }
    stats.job_done(loader->stats());
    if (auto same = sig_file->check_unchanged(); !same) return report(inv, same.err());
    if (auto indexed = sig.build_index(req.in_place_safe); !indexed) return report(inv, indexed.err());

    if (!req.new_signature.empty())
        if (auto ok = output_file::check(req.new_signature, req.force); !ok)
            return report_output_check(inv, req.new_signature, req.force, ok.err());
    std::optional<output_file> out;
    if (int rc = create_output(req, inv, out_path, out, {&*sig_file, &*new_in})) return rc;
    new_signature_file new_sig;
    if (int rc = open_new_signature(req, inv, sig, out_path, new_sig, {&*sig_file, &*new_in})) return rc;
    const new_signature_output* new_sig_out = new_sig.output ? &*new_sig.output : nullptr;
    auto meter = make_meter(req, inv, "delta", new_in->size());
    // rdelta's deltas carry the trailer unless --no-checksum: patch then fails on a
    // wrong basis instead of writing a wrong file, and patch --in-place verifies the
    // image and refuses to apply a delta twice. Under the name rdiff, rdiff's bytes.
    const bool checksum = !inv.as_rdiff && !req.no_checksum;
    delta_options options{{static_cast<unsigned>(req.threads)}, checksum, req.in_place_safe};
    if (checksum) options.basis_root = basis_root_for(req, file_arg(req, 0));
    delta_tail tail;
    // rdiff has no work budget; rdelta's default is the library's.
    if (inv.as_rdiff)
        options.max_strong_work = 0;
    else if (req.max_strong_work >= 0)
        options.max_strong_work = static_cast<std::uint64_t>(req.max_strong_work);
    std::optional<job_stats> made;
    const auto run_delta = [&](const byte_sink& to_file) -> result<void> {
        auto packed = open_packer(req, *out, to_file);
        if (!packed) return std::move(packed).err();
        const byte_sink sink = tail.keeping(packed->sink());
        // An empty signature's delta follows rdiff's reads, block-length chunks
        // unless -I: make_delta_from reads those too, and skips holes.
        const bool file_chunks = sig.block_count() > 0 || (req.input_size <= 0 && sig.params().block_len > 0);
        auto scanned = file_chunks && new_in->size()
                           ? delta_of_file(sig, *new_in, options, sink, *meter, new_sig_out)
                           : delta_of_stream(sig, *new_in, options, req, sink, *meter, new_sig_out);
        if (!scanned) return std::move(scanned).err();
        made = *scanned;
        return packed->finish();
    };
    // The scan runs on a second thread (and the worker pool) while this one writes
    // the output, as patch does (patch_command says why this thread); 32 buffers of
    // 256 KiB hold a delta chunk's output, so the scan goes on while a slow write
    // catches up.
    const result<void> done = background_sink::produce_on_helper(out->sink(), run_delta, std::size_t{256} << 10, 32);
    meter->finish();
    if (!done) return report(inv, done.err());
    stats.line(format_match_stats(*made));
    if (new_sig.packed)
        if (auto finished = new_sig.packed->finish(); !finished) return report(inv, finished.err());
    // Either output describes the file only as it was while it was read.
    if (new_sig.out)
        if (auto same = new_in->check_unchanged(); !same) return report(inv, same.err());
    if (int rc = publish(*out, inv, req.quiet)) return rc;
    if (new_sig.out) {
        if (int rc = publish(*new_sig.out, inv, req.quiet)) return rc;
        keep_new_root(req, inv, tail, *new_sig.out);
    }
    stats.job_done(*made);
    meter->summary(made->in_bytes, made->holes_skipped);
    stats.summary(made->in_bytes, made->holes_skipped);
    stats.json(*made);
    return exit_success;
}

}  // namespace rdelta::cli
