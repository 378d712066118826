// info_command.cpp - `rdelta info [--check] [--json] FILE`: what a signature or a
// delta holds, read as a stream (compressed or not) and validated as delta and
// patch would validate it, without applying anything.
#include "info_command.hpp"

#include "core/stat_counter.hpp"
#include "exit_codes.hpp"
#include "format/checksum_trailer.hpp"
#include "format/command_stream.hpp"
#include "format/netint.hpp"

#include <rdelta/compression.hpp>
#include <rdelta/drive.hpp>
#include <rdelta/file.hpp>
#include <rdelta/format.hpp>
#include <rdelta/signature.hpp>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace rdelta::cli {

namespace {

// A source whose first bytes were already read (to look at the magic).
class replaying_source final : public byte_source {
public:
    replaying_source(byte_source& rest, std::vector<std::uint8_t> head) : rest_(rest), head_(std::move(head)) {}
    result<std::size_t> read_full(std::span<std::uint8_t> out) override {
        const std::size_t k = std::min(out.size(), head_.size() - used_);
        std::memcpy(out.data(), head_.data() + used_, k);
        used_ += k;
        if (k == out.size()) return k;
        auto got = rest_.read_full(out.subspan(k));
        if (!got) return got;
        return k + *got;
    }
    std::optional<std::uint64_t> size() const noexcept override { return rest_.size(); }
    const std::string& name() const noexcept override { return rest_.name(); }

private:
    byte_source& rest_;
    std::vector<std::uint8_t> head_;
    std::size_t used_ = 0;
};

struct delta_summary {
    std::uint64_t literal_cmds = 0, literal_bytes = 0, copy_cmds = 0, copy_bytes = 0, delta_bytes = 0;
    std::uint64_t new_length = 0, basis_needed = 0;  // bytes written; COPYs read up to basis_needed
    bool trailer = false, chunked_trailer = false;
    std::string root, basis_root;  // hex, from a chunked trailer
    std::uint64_t trailer_length = 0, ignored_after_end = 0;
};

result<delta_summary> read_delta(byte_source& in) {
    detail::command_stream commands(in);
    if (auto started = commands.start(); !started) return std::move(started).err();
    delta_summary s;
    for (;;) {
        auto c = commands.next();
        if (!c) return std::move(c).err();
        if (c->kind == detail::cmd_kind::end) break;
        if (c->kind == detail::cmd_kind::literal) {
            ++s.literal_cmds, s.literal_bytes = detail::capped_sum(s.literal_bytes, c->len);
            while (commands.literal_left() > 0)
                if (auto piece = commands.literal_piece(std::size_t{1} << 20); !piece) return std::move(piece).err();
        } else {
            // Past 2^63 - 1 (the largest file offset) no basis has bytes: patch fails with 103.
            if (c->len > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - c->pos) {
                char text[200];
                std::snprintf(text, sizeof text,
                              ": COPY at offset %" PRIu64 " reads basis bytes %" PRIu64 "..%" PRIu64
                              ", past the end of any basis (2^63 - 1 bytes at most)",
                              c->offset, c->pos, c->pos + c->len);
                return fail(errc::input_ended, in.name() + text);
            }
            ++s.copy_cmds, s.copy_bytes = detail::capped_sum(s.copy_bytes, c->len);
            s.basis_needed = std::max(s.basis_needed, detail::capped_sum(c->pos, c->len));
        }
        s.new_length = detail::capped_sum(s.new_length, c->len);
    }
    auto rest = commands.after_end(detail::max_trailer_size + 1);
    if (!rest) return std::move(rest).err();
    s.delta_bytes = commands.consumed() + rest->size();
    if (const auto size = detail::trailer_size_at(rest->data(), rest->size()); size != 0 && rest->size() == size) {
        s.trailer = true;
        s.chunked_trailer = detail::is_chunk_trailer(rest->data(), rest->size());
        if (s.chunked_trailer) s.root = detail::hash_hex(detail::trailer_root(rest->data()));
        if (const auto basis = detail::trailer_basis_root(rest->data(), rest->size()))
            s.basis_root = detail::hash_hex(*basis);
        s.trailer_length = detail::trailer_length(rest->data());
        if (s.trailer_length != s.new_length)
            return fail(errc::corrupt, in.name() + ": the checksum trailer gives a length of " +
                                           std::to_string(s.trailer_length) + " bytes, the commands make " +
                                           std::to_string(s.new_length));
    } else {
        s.ignored_after_end = rest->size();  // at least this many; rdiff ignores them
    }
    return s;
}

// A file name as a JSON string body (quotes, backslashes and controls escaped).
std::string json_text(const std::string& text) {
    std::string out;
    for (const unsigned char ch : text) {
        if (ch == '"' || ch == '\\')
            out += '\\', out += static_cast<char>(ch);
        else if (ch < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", ch);
            out += esc;
        } else
            out += static_cast<char>(ch);
    }
    return out;
}

const char* weak_name(weak_kind k) {
    return k == weak_kind::rollsum ? "rollsum" : "rabinkarp";
}
const char* strong_name(strong_kind k) {
    return k == strong_kind::md4 ? "md4" : "blake2";
}

int print_signature(const request& req, const std::string& name, const signature& sig, codec packed) {
    const sig_params& p = sig.params();
    const sig_format f = p.format();
    const std::uint64_t n = sig.block_count();
    const std::uint64_t min_basis = n ? (n - 1) * p.block_len + 1 : 0, max_basis = n * p.block_len;
    if (req.check) return std::printf("%s: valid signature\n", name.c_str()), 0;
    if (req.json) {
        std::printf(
            "{\"file\": \"%s\", \"kind\": \"signature\", \"compression\": \"%s\", \"magic\": \"0x%08x\", "
            "\"weak\": \"%s\", \"strong\": \"%s\", \"block_length\": %u, \"strong_length\": %u, "
            "\"blocks\": %" PRIu64 ", \"basis_bytes_min\": %" PRIu64 ", \"basis_bytes_max\": %" PRIu64 "}\n",
            json_text(name).c_str(), codec_name(packed), p.magic, weak_name(f.weak), strong_name(f.strong), p.block_len,
            p.strong_len, n, min_basis, max_basis);
        return 0;
    }
    std::printf("%s: signature (magic 0x%08x)%s%s\n", name.c_str(), p.magic,
                packed == codec::none ? "" : ", compressed with ", packed == codec::none ? "" : codec_name(packed));
    std::printf("  weak sum       %s\n  strong sum     %s, %u of %zu bytes kept\n", weak_name(f.weak),
                strong_name(f.strong), p.strong_len, max_strong_len(f.strong));
    std::printf("  block length   %u\n  blocks         %" PRIu64 "\n", p.block_len, n);
    std::printf("  basis size     %" PRIu64 " to %" PRIu64 " bytes\n", min_basis, max_basis);
    return 0;
}

int print_delta(const request& req, const std::string& name, const delta_summary& s, codec packed) {
    if (req.check) return std::printf("%s: valid delta\n", name.c_str()), 0;
    if (req.json) {
        std::printf(
            "{\"file\": \"%s\", \"kind\": \"delta\", \"compression\": \"%s\", \"delta_bytes\": %" PRIu64
            ", \"literal_commands\": %" PRIu64 ", \"literal_bytes\": %" PRIu64 ", \"copy_commands\": %" PRIu64
            ", \"copy_bytes\": %" PRIu64 ", \"new_file_bytes\": %" PRIu64 ", \"basis_bytes_needed\": %" PRIu64
            ", \"checksum_trailer\": %s, \"root\": \"%s\", \"basis_root\": \"%s\", \"bytes_after_end\": %" PRIu64 "}\n",
            json_text(name).c_str(), codec_name(packed), s.delta_bytes, s.literal_cmds, s.literal_bytes, s.copy_cmds,
            s.copy_bytes, s.new_length, s.basis_needed, s.trailer ? "true" : "false", s.root.c_str(),
            s.basis_root.c_str(), s.ignored_after_end);
        return 0;
    }
    std::printf("%s: delta, %" PRIu64 " bytes%s%s\n", name.c_str(), s.delta_bytes,
                packed == codec::none ? "" : " decompressed from ", packed == codec::none ? "" : codec_name(packed));
    std::printf("  literal        %" PRIu64 " commands, %" PRIu64 " bytes\n", s.literal_cmds, s.literal_bytes);
    std::printf("  copy           %" PRIu64 " commands, %" PRIu64 " bytes (basis of at least %" PRIu64 " bytes)\n",
                s.copy_cmds, s.copy_bytes, s.basis_needed);
    std::printf("  new file       %" PRIu64 " bytes\n", s.new_length);
    std::printf("  trailer        %s\n", !s.trailer ? "none"
                                         : s.chunked_trailer
                                             ? "XXH3-128 root over 64 KiB chunks of the new file (patch verifies it)"
                                             : "XXH3-128 checksum of the new file (patch verifies it)");
    if (!s.root.empty()) std::printf("  root           %s\n", s.root.c_str());
    if (!s.basis_root.empty())
        std::printf("  basis root     %s (patch --in-place refuses it for another version)\n", s.basis_root.c_str());
    if (s.ignored_after_end) std::printf("  after END      %" PRIu64 "+ bytes, ignored\n", s.ignored_after_end);
    return 0;
}

// The failure; with --json (and not --check) as a JSON object on standard output,
// where the description would have been, so a script reads one object either way.
int report_failure(const request& req, const invocation& inv, const error& e) {
    if (req.json && !req.check)
        std::printf("{\"file\": \"%s\", \"error\": \"%s\", \"exit_status\": %d}\n", json_text(req.files[0]).c_str(),
                    json_text(e.message).c_str(), exit_code(e.code));
    else
        std::fprintf(stderr, "%s: %s\n", inv.prog.c_str(), e.message.c_str());
    return exit_code(e.code);
}

}  // namespace

int info_command(const request& req, const invocation& inv) {
    if (req.files.size() != 1) return report_usage(inv, "info takes one file: a signature or a delta");
    const auto report = [&](const error& e) { return report_failure(req, inv, e); };
    auto file = input_file::open(req.files[0]);
    if (!file) return report(file.err());
    auto in = decompressing_reader::open(*file);
    if (!in) return report(in.err());
    std::vector<std::uint8_t> head(4);
    auto got = in->read_full(head);
    if (!got) return report(got.err());
    head.resize(*got);
    if (head.size() < 4) return report(fail(errc::input_ended, in->name() + ": too short for a signature or a delta"));
    const std::uint32_t magic = detail::get_be32(head.data());
    replaying_source whole(*in, head);
    if (magic == static_cast<std::uint32_t>(magic::delta)) {
        auto summary = read_delta(whole);
        if (!summary) return report(summary.err());
        return print_delta(req, in->name(), *summary, in->kind());
    }
    if (!format_of_magic(magic)) {
        char text[96];
        std::snprintf(text, sizeof text, ": not a signature or a delta (it starts with 0x%08x)", magic);
        return report(fail(errc::bad_magic, in->name() + text));
    }
    signature sig;
    auto loader = make_loadsig_job(&sig, in->name());
    if (auto loaded = drive_job(*loader, whole, {}); !loaded) return report(loaded.err());
    return print_signature(req, in->name(), sig, in->kind());
}

}  // namespace rdelta::cli
