// commands.cpp - the three rdiff actions over files. Arguments are checked in
// rdiff's order (inputs opened, outputs checked, then argument count, names and
// parameters) so exit codes match, but nothing is created before all checks pass.
#include "commands.hpp"

#include <rdelta/file.hpp>
#include "benchmark_command.hpp"
#include "exit_codes.hpp"
#include "history_command.hpp"
#include "in_place_command.hpp"
#include "info_command.hpp"
#include "preflight.hpp"
#include "progress.hpp"
#include "pull_command.hpp"
#include "push_command.hpp"
#include "rdiff_messages.hpp"
#include "stats_format.hpp"

#include <rdelta/basis_root.hpp>
#include <rdelta/compression.hpp>
#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <sys/resource.h>
#include <sys/time.h>
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

namespace rdelta::cli {

namespace {

constexpr std::size_t default_chunk = std::size_t{8} << 20;
// A patch reads its delta 256 KiB at a time: the literal bytes then pass from the
// read buffer to the writer's buffers while still in the core's cache (8 MiB reads
// were slower: bench/README.md, "Measurements behind design choices").
constexpr std::size_t patch_delta_chunk = std::size_t{256} << 10;
// rdiff 2.3.2 cannot load signatures with larger blocks (4 x block_len overflows an int).
constexpr std::int64_t max_block_size = 536870911;

std::string file_arg(const request& req, std::size_t i) {
    return i < req.files.size() ? req.files[i] : "-";
}

int report(const invocation& inv, const error& e) {
    if (inv.as_rdiff) return rdiff_messages::failed(e);
    std::fprintf(stderr, "%s: %s\n", inv.prog.c_str(), e.message.c_str());
    return exit_code(e.code);
}

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

// The output argument at `index`, after the inputs were opened: may it be
// written, and is it the last argument (rdiff checks in that order)?
int check_output_arg(const request& req, const invocation& inv, std::size_t index, std::string& out_path) {
    out_path = file_arg(req, index);
    if (auto ok = output_file::check(out_path, req.force); !ok)
        return report_output_check(inv, out_path, req.force, ok.err());
    if (req.files.size() > index + 1) return report_usage(inv, "Too many arguments.");
    return exit_success;
}

double now_seconds() {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// Statistics of one job, printed when -s is given.
class stats_printer {
public:
    stats_printer(const request& req, const invocation& inv) : enabled_(req.statistics), json_(req.json), inv_(inv) {}
    void start() { start_ = std::time(nullptr), start_precise_ = now_seconds(); }
    void job_done(const job_stats& s) const {
        if (enabled_) std::fprintf(stderr, "librsync: %s\n", format_stats(s, start_, std::time(nullptr)).c_str());
    }
    void line(const std::string& text) const {
        if (enabled_) std::fprintf(stderr, "librsync: %s\n", text.c_str());
    }
    // rdelta's own summary: elapsed time, throughput, peak memory, and the bytes
    // really read from files (holes of sparse inputs are not read).
    void summary(std::int64_t bytes_in, std::int64_t holes = 0) const {
        if (!enabled_ || inv_.as_rdiff) return;
        const double secs = now_seconds() - start_precise_;
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        std::fprintf(stderr,
                     "%s: elapsed %.3f s, %.1f MB/s in, peak memory %.1f MiB, read %.1f MiB, holes skipped %.1f MiB\n",
                     inv_.prog.c_str(), secs, secs > 0 ? static_cast<double>(bytes_in) / 1e6 / secs : 0.0,
                     static_cast<double>(ru.ru_maxrss) / 1024.0, static_cast<double>(process_bytes_read()) / 1048576.0,
                     static_cast<double>(holes) / 1048576.0);
    }

    // --json: one object on stderr for scripts, whatever -s says.
    void json(const job_stats& s) const {
        if (!json_) return;
        const double secs = now_seconds() - start_precise_;
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        std::fprintf(stderr,
                     "{\"command\": \"%s\", \"in_bytes\": %" PRId64 ", \"out_bytes\": %" PRId64
                     ", \"literal_commands\": %" PRId64 ", \"literal_bytes\": %" PRId64 ", \"copy_commands\": %" PRId64
                     ", \"copy_bytes\": %" PRId64 ", \"blocks\": %" PRId64
                     ", \"elapsed_s\": %.3f, \"peak_rss_bytes\": %lld"
                     ", \"read_bytes\": %" PRId64 ", \"holes_skipped\": %" PRId64 "}\n",
                     s.op, s.in_bytes, s.out_bytes, s.lit_cmds, s.lit_bytes, s.copy_cmds, s.copy_bytes, s.sig_blocks,
                     secs, static_cast<long long>(ru.ru_maxrss) * 1024, process_bytes_read(), s.holes_skipped);
    }

private:
    bool enabled_, json_;
    const invocation& inv_;
    std::time_t start_ = 0;
    double start_precise_ = 0;
};

// Run a job from `in` to `out` (empty: the job writes nothing), reading input
// in chunks of `chunk` bytes, each filled completely unless the input ends.
result<void> drive(job& j, byte_source& in, const byte_sink& out, std::size_t chunk, progress_meter* meter = nullptr,
                   bool meter_output = false) {
    drive_options options;
    options.chunk = chunk;
    if (meter) options.progress = [&](const job_stats& s) { meter->update(meter_output ? s.out_bytes : s.in_bytes); };
    return drive_job(j, in, out, options);
}

// Put a finished output in place; say which attributes of a replaced file were lost.
int publish(output_file& out, const invocation& inv, bool quiet) {
    if (auto committed = out.commit(); !committed) return report(inv, committed.err());
    if (!out.warning().empty() && !quiet)
        std::fprintf(stderr, "%s: warning: %s: extended attributes not kept: %s\n", inv.prog.c_str(),
                     out.name().c_str(), out.warning().c_str());
    return exit_success;
}

// An output written directly (a device, standard output) that is also one of the
// inputs would overwrite what is still to be read; nothing has been written yet.
int refuse_overwriting_inputs(const invocation& inv, const output_file& out,
                              std::initializer_list<const input_file*> inputs) {
    for (const input_file* in : inputs)
        if (out.overwrites(in->fd()))
            return report(inv, fail(errc::io_error, out.name() + ": it is also the input " + in->name() +
                                                        " (the same file or device, or storage under it): writing it "
                                                        "would destroy what is still to be read"));
    return exit_success;
}

// The output file (or stream) of signature and delta.
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

// The compressor (codec::none passes bytes through) in front of `to_file`.
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

int check_sizes(const request& req, const invocation& inv) {
    if (req.input_size < 0 || req.output_size < 0)
        return report_usage(inv, "Buffer sizes (-I, -O) must not be negative.");
    if (req.threads < 0 || req.threads > 1024)
        return report_usage(inv, "Thread count (-j) must be 0 (all cores) to 1024.");
    if (req.max_output < 0) return report_usage(inv, "--max-output must not be negative.");
    if (req.max_strong_work < -1) return report_usage(inv, "--max-strong-work must not be negative.");
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
    if (!resolved) return report(inv, resolved.err());
    if (!resolved->warning.empty() && !req.quiet)
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

}  // namespace

int report_usage(const invocation& inv, const std::string& message) {
    if (inv.as_rdiff)
        std::fprintf(stderr, "%s: %s\n\nTry `%s --help' for more information.\n", inv.prog.c_str(), message.c_str(),
                     inv.prog.c_str());
    else
        std::fprintf(stderr, "%s: %s%s (see '%s --help')\n", inv.prog.c_str(), message.c_str(),
                     spelling_hint(message).c_str(), inv.prog.c_str());
    return exit_code(errc::syntax_error);
}

int run_command(const request& req, const invocation& inv) {
    if (!inv.as_rdiff && req.act != action::none) {
        if (auto problem = misapplied_option(req)) return report_usage(inv, *problem);
        if (auto problem = binary_to_terminal(req)) return report_usage(inv, *problem);
    }
    switch (req.act) {
        case action::signature: return signature_command(req, inv);
        case action::delta: return delta_command(req, inv);
        case action::patch: return patch_command(req, inv);
        case action::benchmark: return benchmark_command(req, inv);
        case action::info: return info_command(req, inv);
        case action::recover: return recover_command(req, inv);
        case action::verify: return verify_command(req, inv);
        case action::push: return push_command(req, inv);
        case action::history: return history_command(req, inv);
        case action::restore: return restore_command(req, inv);
        case action::prune: return prune_command(req, inv);
        case action::pull: return pull_command(req, inv);
        case action::none: break;
    }
    return report_usage(inv, "You must specify an action: `signature', `delta', or `patch'.");
}

}  // namespace rdelta::cli
