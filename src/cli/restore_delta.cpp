// restore_delta.cpp - the delta to a restore point (restore_delta.hpp): what
// `rdelta pull --at POINT` asks the remote host for.
#include "restore_delta.hpp"

#include "exit_codes.hpp"
#include "history_command.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/delta.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/history.hpp>
#include <rdelta/in_place_fd.hpp>
#include <rdelta/input_file.hpp>
#include <rdelta/output_file.hpp>
#include <rdelta/signature.hpp>

#include <cinttypes>
#include <cstdio>
#include <optional>

namespace rdelta::cli {

namespace {

// SIG, decompressed as needed, with the index an in-place-safe delta uses.
result<signature> load_signature_file(const std::string& path) {
    auto file = input_file::open(path);
    if (!file) return std::move(file).err();
    auto in = decompressing_reader::open(*file);
    if (!in) return std::move(in).err();
    signature sig;
    auto loader = make_loadsig_job(&sig, in->name(), in->size(), true);
    if (auto loaded = drive_job(*loader, *in, {}); !loaded) return std::move(loaded).err();
    if (auto same = file->check_unchanged(); !same) return std::move(same).err();
    if (auto indexed = sig.build_index(true); !indexed) return std::move(indexed).err();
    return sig;
}

}  // namespace

int restore_delta(const request& req, const invocation& inv, in_place_fd& image, history& h, std::uint64_t number) {
    const std::string& target = req.files[2];
    if (target != "-")
        if (auto ok = output_file::check(target, req.force); !ok) return report(inv, ok.err());
    auto sig = load_signature_file(req.delta_against);
    if (!sig) return report(inv, sig.err());
    history_point info;
    auto point = open_point(image, h, number, &info);
    if (!point) return report(inv, point.err());
    auto out = output_file::create(target, req.force);
    if (!out) return report(inv, out.err());
    out->set_durable(req.durable);
    const compression_options packing{req.compression, req.compression_level, 0};
    auto packed = compressing_writer::open(packing, out->name(), out->sink());
    if (!packed) return report(inv, packed.err());
    // As `rdelta delta` writes it: the chunked trailer names the point's root, which
    // patch --in-place checks the result against; only copies it can apply in place.
    delta_options options{{0}, true, true};
    auto made = make_delta_from(**point, info.length, *sig, options, packed->sink());
    if (!made) return report(inv, made.err());
    if (auto finished = packed->finish(); !finished) return report(inv, finished.err());
    if (auto c = out->commit(); !c) return report(inv, c.err());
    if (!req.quiet)
        std::fprintf(stderr,
                     "%s: %s: wrote the delta from %s to point %" PRIu64 " (%s, %" PRIu64 " bytes) to %s: %" PRId64
                     " bytes, %" PRId64 " of them literal\n",
                     inv.prog.c_str(), image.name().c_str(), req.delta_against.c_str(), number,
                     point_time(info.time_s).c_str(), info.length, target.c_str(), made->out_bytes, made->lit_bytes);
    return exit_success;
}

}  // namespace rdelta::cli
