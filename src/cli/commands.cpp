// commands.cpp - the three rdiff actions over files. Arguments are checked in
// rdiff's order (inputs opened, outputs checked, then argument count, names and
// parameters) so exit codes match, but nothing is created before all checks pass.
#include "commands.hpp"

#include "compression.hpp"
#include "exit_codes.hpp"
#include <rdelta/file.hpp>
#include "progress.hpp"
#include "stats_format.hpp"

#include <rdelta/delta.hpp>
#include <rdelta/patch.hpp>
#include <rdelta/signature.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <ctime>
#include <sys/resource.h>
#include <sys/time.h>
#include <vector>

namespace rdelta::cli {

namespace {

constexpr std::size_t default_chunk = std::size_t{8} << 20;
// rdiff 2.3.2 cannot load signatures with larger blocks (4 x block_len overflows an int).
constexpr std::int64_t max_block_size = 536870911;

int report(const invocation& inv, const error& e) {
    std::fprintf(stderr, "%s: %s\n", inv.prog.c_str(), e.message.c_str());
    return exit_code(e.code);
}

std::string file_arg(const request& req, std::size_t i) {
    return i < req.files.size() ? req.files[i] : "-";
}

// Bytes this process has read with read() and pread() (/proc/self/io "rchar").
std::int64_t bytes_read() {
    std::FILE* f = std::fopen("/proc/self/io", "r");
    if (!f) return 0;
    long long rchar = 0;
    if (std::fscanf(f, "rchar: %lld", &rchar) != 1) rchar = 0;
    std::fclose(f);
    return rchar;
}

double now_seconds() {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// Statistics of one job, printed when -s is given.
class stats_printer {
public:
    stats_printer(const request& req, const invocation& inv) : enabled_(req.statistics), inv_(inv) {}
    void start() { start_ = std::time(nullptr), start_precise_ = now_seconds(); }
    void job_done(const job_stats& s) const {
        if (enabled_) std::fprintf(stderr, "librsync: %s\n", format_stats(s, start_, std::time(nullptr)).c_str());
    }
    void line(const std::string& text) const {
        if (enabled_) std::fprintf(stderr, "librsync: %s\n", text.c_str());
    }
    // rdelta's own summary: elapsed time, throughput, peak memory, and the bytes
    // really read from files (holes of sparse inputs are not read).
    void summary(std::int64_t bytes_in) const {
        if (!enabled_ || inv_.as_rdiff) return;
        const double secs = now_seconds() - start_precise_;
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        std::fprintf(stderr, "%s: elapsed %.3f s, %.1f MB/s in, peak memory %.1f MiB, read %.1f MiB\n",
                     inv_.prog.c_str(), secs, secs > 0 ? static_cast<double>(bytes_in) / 1e6 / secs : 0.0,
                     static_cast<double>(ru.ru_maxrss) / 1024.0, static_cast<double>(bytes_read()) / 1048576.0);
    }

private:
    bool enabled_;
    const invocation& inv_;
    std::time_t start_ = 0;
    double start_precise_ = 0;
};

// Run a job from `in` to `out` (empty: the job writes nothing), reading input
// in chunks of `chunk` bytes, each filled completely unless the input ends.
result<void> drive(job& j, byte_source& in, const byte_sink& out, std::size_t chunk,
                   progress_meter* meter = nullptr, bool meter_output = false) {
    // A small regular file needs no buffer larger than itself (+1 to see its end).
    if (in.size_hint() >= 0) chunk = std::min<std::size_t>(chunk, static_cast<std::size_t>(in.size_hint()) + 1);
    chunk = std::max<std::size_t>(chunk, 1);
    auto ibuf = std::make_unique_for_overwrite<std::uint8_t[]>(chunk);
    const std::size_t out_size = std::size_t{256} << 10;  // stays in L2 between read and write
    auto obuf = std::make_unique_for_overwrite<std::uint8_t[]>(out_size);
    std::size_t have = 0, used = 0;
    bool eof = false, output_full = false;
    for (;;) {
        // Read more only when the job has taken what it had and its output is drained.
        if (used == have && !eof && !output_full) {
            auto got = in.read_full(ibuf.get(), chunk);
            if (!got) return std::move(got).err();
            have = *got, used = 0, eof = have < chunk;
        }
        buffers io{ibuf.get() + used, have - used, eof, obuf.get(), out_size};
        auto status = j.iterate(io);
        used = have - io.avail_in;
        const std::size_t produced = out_size - io.avail_out;
        output_full = io.avail_out == 0;
        if (produced && out) {
            if (auto written = out({obuf.get(), produced}); !written) return written;
        }
        if (!status) return std::move(status).err();
        if (meter) meter->update(meter_output ? j.stats().out_bytes : j.stats().in_bytes);
        if (*status == job_status::done) return {};
        if (eof && used == have && produced == 0)
            return fail(errc::internal_error, in.name() + ": job made no progress");
    }
}

byte_sink sink_to(output_file& out) {
    return [&out](std::span<const std::uint8_t> bytes) { return out.write(bytes.data(), bytes.size()); };
}

byte_sink sink_to(compressing_writer& out) {
    return [&out](std::span<const std::uint8_t> bytes) { return out.write(bytes); };
}

int check_hash_names(const request& req, const invocation& inv, sig_format& format) {
    if (req.hash == "blake2") format.strong = strong_kind::blake2;
    else if (req.hash == "md4") format.strong = strong_kind::md4;
    else return report_usage(inv, "Unknown hash algorithm '" + req.hash + "'.");
    if (req.rollsum == "rabinkarp") format.weak = weak_kind::rabinkarp;
    else if (req.rollsum == "rollsum") format.weak = weak_kind::rollsum;
    else return report_usage(inv, "Unknown rollsum algorithm '" + req.rollsum + "'.");
    return exit_success;
}

int check_sizes(const request& req, const invocation& inv) {
    if (req.input_size < 0 || req.output_size < 0)
        return report_usage(inv, "Buffer sizes (-I, -O) must not be negative.");
    if (req.threads < 0 || req.threads > 1024) return report_usage(inv, "Thread count (-j) must be 0 (all cores) to 1024.");
    if (req.max_output < 0) return report_usage(inv, "--max-output must not be negative.");
    if (req.max_strong_work < -1) return report_usage(inv, "--max-strong-work must not be negative.");
    return exit_success;
}

std::unique_ptr<progress_meter> make_meter(const request& req, const invocation& inv, const char* label,
                                           std::int64_t total) {
    const bool forced = req.progress.value_or(false);
    return std::make_unique<progress_meter>(progress_wanted(inv.as_rdiff, req.progress ? &forced : nullptr),
                                            label, total);
}

int signature_command(const request& req, const invocation& inv) {
    auto in = input_file::open(file_arg(req, 0));
    if (!in) return report(inv, in.err());
    in->set_nocache(req.nocache);
    const std::string out_path = file_arg(req, 1);
    if (auto ok = output_file::check(out_path, req.force); !ok) return report(inv, ok.err());
    if (req.files.size() > 2) return report_usage(inv, "Too many arguments.");
    sig_format format;
    if (int rc = check_hash_names(req, inv, format)) return rc;
    if (int rc = check_sizes(req, inv)) return rc;
    if (req.block_size < 0 || req.block_size > max_block_size)
        return report(inv, fail(errc::param_error, "block size " + std::to_string(req.block_size) +
                                                       " is out of range (0 to " + std::to_string(max_block_size) + ")"));

    auto resolved = resolve_sig_params({in->regular_size(), magic_of_format(format),
                                        static_cast<std::uint64_t>(req.block_size), req.sum_size});
    if (!resolved) return report(inv, resolved.err());
    if (!resolved->warning.empty()) std::fprintf(stderr, "%s: warning: %s\n", inv.prog.c_str(), resolved->warning.c_str());
    const sig_params params = resolved->params;
    if (req.verbose && !inv.as_rdiff)
        std::fprintf(stderr, "%s: signature: magic %#x, block length %u, strong sum length %u\n", inv.prog.c_str(),
                     params.magic, params.block_len, params.strong_len);

    auto out = output_file::create(out_path);
    if (!out) return report(inv, out.err());
    out->set_nocache(req.nocache);
    auto packed = compressing_writer::open(req.compression, req.compression_level, out->name(), sink_to(*out));
    if (!packed) return report(inv, packed.err());
    stats_printer stats(req, inv);
    stats.start();
    auto meter = make_meter(req, inv, "signature", in->regular_size());
    const job_options options{static_cast<unsigned>(req.threads)};
    job_stats done_stats;
    if (in->regular_size() >= 0) {
        // Random access: every thread reads and hashes its own slices.
        file_basis reader(*in);
        std::int64_t records = 0;
        const std::int64_t record_size = 4 + params.strong_len;
        auto made = make_signature_from(reader, static_cast<std::uint64_t>(in->regular_size()), params, options,
                                        [&](std::span<const std::uint8_t> bytes) {
                                            records += static_cast<std::int64_t>(bytes.size()) / record_size;
                                            meter->update(records * params.block_len);
                                            return packed->write(bytes);
                                        });
        if (!made) return report(inv, made.err());
        done_stats = *made;
    } else {
        auto j = make_signature_job(params, options);
        if (auto done = drive(*j, *in, sink_to(*packed), default_chunk, meter.get()); !done)
            return report(inv, done.err());
        done_stats = j->stats();
    }
    meter->finish();
    if (auto finished = packed->finish(); !finished) return report(inv, finished.err());
    if (auto committed = out->commit(); !committed) return report(inv, committed.err());
    stats.job_done(done_stats);
    stats.summary(done_stats.in_bytes);
    return exit_success;
}

// A regular file or block device: holes are not read (make_delta_from).
result<job_stats> delta_of_file(const signature& sig, input_file& new_in, job_options options,
                                compressing_writer& out, progress_meter& meter) {
    file_basis reader(new_in);
    return make_delta_from(reader, static_cast<std::uint64_t>(new_in.regular_size()), sig, options, sink_to(out),
                           [&](std::uint64_t done) { meter.update(static_cast<std::int64_t>(done)); });
}

// A pipe, or an empty signature, whose delta depends on the input chunking: rdiff
// reads the new file in chunks of the block length, or -I.
result<job_stats> delta_of_stream(const signature& sig, input_file& new_in, job_options options, const request& req,
                                  compressing_writer& out, progress_meter& meter) {
    auto j = make_delta_job(sig, options);
    const std::size_t chunk = sig.block_count() > 0 ? delta_chunk_size(sig, options.threads)
                              : req.input_size > 0  ? static_cast<std::size_t>(req.input_size)
                                                    : sig.params().block_len;
    if (auto done = drive(*j, new_in, sink_to(out), chunk, &meter); !done) return std::move(done).err();
    return j->stats();
}

int delta_command(const request& req, const invocation& inv) {
    auto sig_file = input_file::open(file_arg(req, 0));
    if (!sig_file) return report(inv, sig_file.err());
    auto new_in = input_file::open(file_arg(req, 1));
    if (!new_in) return report(inv, new_in.err());
    new_in->set_nocache(req.nocache);
    const std::string out_path = file_arg(req, 2);
    if (auto ok = output_file::check(out_path, req.force); !ok) return report(inv, ok.err());
    if (req.files.size() > 3) return report_usage(inv, "Too many arguments.");
    if (int rc = check_sizes(req, inv)) return rc;

    stats_printer stats(req, inv);
    stats.start();
    auto sig_in = decompressing_reader::open(*sig_file);  // the signature may be compressed
    if (!sig_in) return report(inv, sig_in.err());
    signature sig{sig_params{}};
    auto loader = make_loadsig_job(&sig, sig_in->name(),
                                   sig_in->size_hint() > 0 ? static_cast<std::uint64_t>(sig_in->size_hint()) : 0);
    if (auto loaded = drive(*loader, *sig_in, {}, default_chunk); !loaded) return report(inv, loaded.err());
    stats.job_done(loader->stats());
    if (auto indexed = sig.build_index(req.in_place_safe); !indexed) return report(inv, indexed.err());

    auto out = output_file::create(out_path);
    if (!out) return report(inv, out.err());
    out->set_nocache(req.nocache);
    auto packed = compressing_writer::open(req.compression, req.compression_level, out->name(), sink_to(*out));
    if (!packed) return report(inv, packed.err());
    auto meter = make_meter(req, inv, "delta", new_in->regular_size());
    job_options options{static_cast<unsigned>(req.threads), req.checksum, req.in_place_safe};
    // rdiff has no work budget; rdelta's default is the library's.
    if (inv.as_rdiff) options.max_strong_work = 0;
    else if (req.max_strong_work >= 0) options.max_strong_work = static_cast<std::uint64_t>(req.max_strong_work);
    auto made = sig.block_count() > 0 && new_in->regular_size() >= 0
                    ? delta_of_file(sig, *new_in, options, *packed, *meter)
                    : delta_of_stream(sig, *new_in, options, req, *packed, *meter);
    meter->finish();
    if (!made) return report(inv, made.err());
    stats.line(format_match_stats(*made));
    if (auto finished = packed->finish(); !finished) return report(inv, finished.err());
    if (auto committed = out->commit(); !committed) return report(inv, committed.err());
    stats.job_done(*made);
    stats.summary(made->in_bytes);
    return exit_success;
}

// patch --in-place IMAGE [DELTA]: the delta is read whole and checked before the
// image is touched; a delta that cannot be applied in place leaves it unchanged.
int patch_in_place_command(const request& req, const invocation& inv) {
    auto image = in_place_fd::open(file_arg(req, 0));
    if (!image) return report(inv, image.err());
    auto delta_file = input_file::open(file_arg(req, 1));
    if (!delta_file) return report(inv, delta_file.err());
    if (req.files.size() > 2) return report_usage(inv, "Too many arguments (--in-place takes BASIS [DELTA]).");
    if (int rc = check_sizes(req, inv)) return rc;
    auto delta_in = decompressing_reader::open(*delta_file);  // the delta may be compressed
    if (!delta_in) return report(inv, delta_in.err());
    auto delta = read_whole(*delta_in);
    if (!delta) return report(inv, delta.err());
    stats_printer stats(req, inv);
    stats.start();
    patch_options options;
    options.delta_name = delta_in->name();
    options.require_checksum = req.verify;
    if (req.max_output > 0) options.max_output = static_cast<std::uint64_t>(req.max_output);
    auto done = patch_in_place(*delta, *image, options);
    if (!done) return report(inv, done.err());
    stats.job_done(*done);
    if (req.verify)
        std::fprintf(stderr, "%s: %s: verified %" PRId64 " bytes against the delta's XXH3-128 checksum\n",
                     inv.prog.c_str(), file_arg(req, 0).c_str(), done->out_bytes);
    stats.summary(done->in_bytes);
    return exit_success;
}

int patch_command(const request& req, const invocation& inv) {
    if (req.compression != codec::none)
        return report_usage(inv, std::string("--") + codec_name(req.compression) +
                                     " compresses signature and delta output; patch finds a compressed delta by itself");
    if (req.in_place) return patch_in_place_command(req, inv);
    auto basis_in = input_file::open(file_arg(req, 0));
    if (!basis_in) return report(inv, basis_in.err());
    basis_in->set_nocache(req.nocache);
    auto delta_file = input_file::open(file_arg(req, 1));
    if (!delta_file) return report(inv, delta_file.err());
    const std::string out_path = file_arg(req, 2);
    if (auto ok = output_file::check(out_path, req.force); !ok) return report(inv, ok.err());
    if (req.files.size() > 3) return report_usage(inv, "Too many arguments.");
    if (int rc = check_sizes(req, inv)) return rc;

    auto out = output_file::create(out_path);
    if (!out) return report(inv, out.err());
    out->set_sparse(req.sparse);
    out->set_nocache(req.nocache);
    stats_printer stats(req, inv);
    stats.start();
    auto meter = make_meter(req, inv, "patch (output)", -1);
    auto delta_in = decompressing_reader::open(*delta_file);  // the delta may be compressed
    if (!delta_in) return report(inv, delta_in.err());
    file_basis basis(*basis_in);
    patch_options options;
    options.delta_name = delta_in->name();
    options.require_checksum = req.verify;
    if (req.max_output > 0) options.max_output = static_cast<std::uint64_t>(req.max_output);
    // A file output is checked against a checksum trailer by reading it back, so a
    // delta without one costs no hashing.
    std::vector<std::uint8_t> trailer;
    if (out->can_read_back())
        options.take_trailer = [&](std::span<const std::uint8_t> t) { trailer.assign(t.begin(), t.end()); };
    auto j = make_patch_job(basis, options);
    auto done = drive(*j, *delta_in, sink_to(*out), default_chunk, meter.get(), true);
    meter->finish();
    stats.job_done(j->stats());  // rdiff prints patch statistics even on failure
    if (!done) return report(inv, done.err());
    if (!trailer.empty()) {
        written_output written(*out);
        auto checked = verify_trailer(trailer, written, static_cast<std::uint64_t>(j->stats().out_bytes), options.delta_name);
        if (!checked) return report(inv, checked.err());
    }
    if (auto committed = out->commit(); !committed) return report(inv, committed.err());
    if (req.verify)
        std::fprintf(stderr, "%s: %s: verified %" PRId64 " bytes against the delta's XXH3-128 checksum\n",
                     inv.prog.c_str(), out->name().c_str(), j->stats().out_bytes);
    stats.summary(j->stats().in_bytes);
    return exit_success;
}

}  // namespace

int report_usage(const invocation& inv, const std::string& message) {
    if (inv.as_rdiff)
        std::fprintf(stderr, "%s: %s\n\nTry `%s --help' for more information.\n", inv.prog.c_str(), message.c_str(),
                     inv.prog.c_str());
    else
        std::fprintf(stderr, "%s: %s (see '%s --help')\n", inv.prog.c_str(), message.c_str(), inv.prog.c_str());
    return exit_code(errc::syntax_error);
}

int run_command(const request& req, const invocation& inv) {
    switch (req.act) {
    case action::signature: return signature_command(req, inv);
    case action::delta: return delta_command(req, inv);
    case action::patch: return patch_command(req, inv);
    case action::none: break;
    }
    return report_usage(inv, "You must specify an action: `signature', `delta', or `patch'.");
}

}  // namespace rdelta::cli
