// backup_files.cpp - the nightly backup job through librdelta's file layer:
//
//   backup_files [--zstd] OLD NEW WORKDIR
//
// 1. signs OLD (holes not read, all cores)               -> WORKDIR/old.sig
// 2. makes an in-place-safe delta of NEW with a checksum  -> WORKDIR/new.delta
//    (zstd-compressed with --zstd; the readers below find that out by themselves)
// 3. patches OLD out of place, sparse, checking the trailer before publishing
//                                                         -> WORKDIR/rebuilt
// 4. patches a copy of OLD in place with an undo journal, keeping OLD as a
//    restore point (update_in_place)                      -> WORKDIR/image
// Each output is published safely (temporary file, fsync, rename). Errors are
// values: the program prints the message and exits with librsync's code.
#include <rdelta/rdelta.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

using namespace rdelta;

namespace {

int die(const error& e) {
    std::fprintf(stderr, "backup_files: %s\n", e.message.c_str());
    return static_cast<int>(e.code);
}

result<void> sign(const std::string& basis_path, const std::string& sig_path) {
    auto in = input_file::open(basis_path);
    if (!in) return std::move(in).err();
    auto out = output_file::create(sig_path, true);
    if (!out) return std::move(out).err();
    file_basis basis(*in);
    const std::uint64_t size = in->size().value_or(0);  // a regular file: known
    auto made = make_signature_from(basis, size, recommended_sig_params(size), job_options{}, out->sink());
    if (!made) return std::move(made).err();
    return out->commit();
}

result<signature> load(const std::string& sig_path) {
    auto in = input_file::open(sig_path);
    if (!in) return std::move(in).err();
    signature sig;
    auto loader = make_loadsig_job(&sig, sig_path, in->size());
    if (auto loaded = drive_job(*loader, *in, {}); !loaded) return std::move(loaded).err();
    // In-place-safe deltas need the index that keeps duplicate blocks.
    if (auto indexed = sig.build_index(true); !indexed) return std::move(indexed).err();
    return sig;
}

result<void> diff(const signature& sig, const std::string& new_path, const std::string& delta_path, codec packing) {
    auto in = input_file::open(new_path);
    if (!in) return std::move(in).err();
    auto out = output_file::create(delta_path, true);
    if (!out) return std::move(out).err();
    // codec::none writes through unchanged; zstd at its default level, on all cores.
    auto packer = compressing_writer::open({packing}, delta_path, out->sink());
    if (!packer) return std::move(packer).err();
    file_basis reader(*in);
    delta_options options;
    options.checksum = true;       // the default: the new file's length and XXH3-128 after END
    options.in_place_safe = true;  // patch --in-place can apply it
    auto made = make_delta_from(reader, in->size().value_or(0), sig, options, packer->sink(), [](std::uint64_t done) {
        std::fprintf(stderr, "\rdelta: %llu bytes", (unsigned long long)done);
    });
    std::fputc('\n', stderr);
    if (!made) return std::move(made).err();
    if (auto finished = packer->finish(); !finished) return finished;
    return out->commit();
}

result<void> rebuild(const std::string& basis_path, const std::string& delta_path, const std::string& out_path) {
    auto basis_in = input_file::open(basis_path);
    if (!basis_in) return std::move(basis_in).err();
    auto delta_file = input_file::open(delta_path);
    if (!delta_file) return std::move(delta_file).err();
    auto delta_in = decompressing_reader::open(*delta_file);  // compressed or not
    if (!delta_in) return std::move(delta_in).err();
    auto out = output_file::create(out_path, true);
    if (!out) return std::move(out).err();
    out->set_sparse(true);   // runs of zeros become holes
    out->set_durable(true);  // on disk before it is published: a backup survives a power cut
    file_basis basis(*basis_in);
    patch_options options;
    options.delta_name = delta_path;
    std::vector<std::uint8_t> trailer;  // checked by reading the output back, not hashed twice
    options.take_trailer = [&](std::span<const std::uint8_t> t) { trailer.assign(t.begin(), t.end()); };
    options.copy_direct = direct_file_copy(basis, *out);  // long COPYs file to file, in the kernel
    auto job = make_patch_job(basis, options);
    if (auto done = drive_job(*job, *delta_in, out->sink()); !done) return std::move(done).err();
    if (!trailer.empty()) {
        written_output written(*out);
        const auto size = static_cast<std::uint64_t>(job->stats().out_bytes);
        if (auto ok = verify_trailer(trailer, written, size, delta_path); !ok) return ok;
    }
    return out->commit();  // nothing is visible under out_path before this
}

result<void> patch_image(const std::string& image_path, const std::string& delta_path) {
    // One call does what `rdelta patch --in-place --keep-history` does: lock the
    // image, finish an interrupted rewrite, recover an interrupted patch, then patch
    // under the undo journal with the manifest, and keep the image as it was as a
    // restore point in .IMAGE.rdelta-history.
    update_options options;
    options.patch.patch.delta_name = delta_path;
    options.patch.patch.require_checksum = true;
    options.keep_history = true;
    const delta_opener open_delta = [&]() -> result<std::unique_ptr<byte_source>> {
        auto in = input_file::open(delta_path);
        if (!in) return std::move(in).err();
        auto delta = decompressing_reader::open(std::make_unique<input_file>(std::move(*in)));
        if (!delta) return std::move(delta).err();
        return std::unique_ptr<byte_source>(new decompressing_reader(std::move(*delta)));
    };
    auto done = update_in_place(image_path, open_delta, options);
    if (!done) return std::move(done).err();
    std::fprintf(stderr,
                 "in place: %llu bytes written to the image, %llu to the journal, verified; restore point %llu\n",
                 (unsigned long long)done->stats.image_bytes_written,
                 (unsigned long long)done->stats.journal_bytes_written, (unsigned long long)done->stats.point_kept);
    return {};
}

result<void> copy_file(const std::string& from, const std::string& to_path) {
    auto in = input_file::open(from);
    if (!in) return std::move(in).err();
    auto out = output_file::create(to_path, true);
    if (!out) return std::move(out).err();
    out->set_sparse(true);
    std::vector<std::uint8_t> buf(1 << 20);
    for (;;) {
        auto got = in->read_full(buf);
        if (!got) return std::move(got).err();
        if (auto w = out->write({buf.data(), *got}); !w) return w;
        if (*got < buf.size()) return out->commit();
    }
}

}  // namespace

int main(int argc, char** argv) {
    const bool zstd = argc == 5 && std::string(argv[1]) == "--zstd";
    if (argc != 4 && !zstd) {
        std::fprintf(stderr, "usage: backup_files [--zstd] OLD NEW WORKDIR\n");
        return 1;
    }
    argv += zstd;
    const std::string old_path = argv[1], new_path = argv[2], dir = argv[3];
    if (auto r = sign(old_path, dir + "/old.sig"); !r) return die(r.err());
    auto sig = load(dir + "/old.sig");
    if (!sig) return die(sig.err());
    if (auto r = diff(*sig, new_path, dir + "/new.delta", zstd ? codec::zstd : codec::none); !r) return die(r.err());
    if (auto r = rebuild(old_path, dir + "/new.delta", dir + "/rebuilt"); !r) return die(r.err());
    if (auto r = copy_file(old_path, dir + "/image"); !r) return die(r.err());
    if (auto r = patch_image(dir + "/image", dir + "/new.delta"); !r) return die(r.err());
    std::printf("rebuilt and image are ready in %s\n", dir.c_str());
    return 0;
}
