// pull_command.cpp - `rdelta pull [--at POINT] [USER@]HOST:PATH LOCAL`: push the
// other way round, for bringing a remote image or one of its restore points back.
//
// Three steps, each one ssh session or local work, each checked before the next:
// `rdelta history --json PATH` there names the points (POINT is resolved here, and
// the point's root kept); LOCAL's signature (an empty one when LOCAL does not
// exist) goes there on the standard input of `rdelta restore --delta-against -
// PATH N -` (or `rdelta delta - PATH -` for the image as it is), whose delta comes
// back, compressed on the wire, into a temporary file. Only once the remote exited
// with 0, and the delta's trailer names the point's root, is LOCAL patched in place
// under its journal (verified against the trailer), or written whole as a new file.
#include "pull_command.hpp"

#include "delta_passes.hpp"
#include "exit_codes.hpp"
#include "history_command.hpp"
#include "push_io.hpp"
#include "ssh_session.hpp"

#include <rdelta/basis_root.hpp>
#include <rdelta/compression.hpp>
#include <rdelta/format.hpp>
#include <rdelta/input_file.hpp>
#include <rdelta/signature.hpp>
#include <rdelta/update.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace rdelta::cli {

namespace {

// What `rdelta history --json` printed: the image's length and its points.
struct remote_history {
    std::uint64_t length = 0;
    std::vector<history_point> points;
};

// The value after "key": within [from, to) of `json`: a number, or a string's text
// (the values read here hold no escapes).
std::optional<std::string> json_value(const std::string& json, std::size_t from, std::size_t to, const char* key) {
    const std::string k = std::string("\"") + key + "\": ";
    const auto at = json.find(k, from);
    if (at == std::string::npos || at >= to) return std::nullopt;
    std::size_t begin = at + k.size(), end = begin;
    if (begin < json.size() && json[begin] == '"') {
        end = json.find('"', ++begin);
        if (end == std::string::npos) return std::nullopt;
    } else {
        while (end < json.size() && (json[end] == '-' || (json[end] >= '0' && json[end] <= '9'))) ++end;
        if (end == begin) return std::nullopt;
    }
    return json.substr(begin, end - begin);
}

std::optional<remote_history> parse_history(const std::string& json) {
    const auto list = json.find("\"points\": [");
    const auto length = json_value(json, 0, list, "length");
    if (list == std::string::npos || !length) return std::nullopt;
    remote_history h;
    h.length = std::strtoull(length->c_str(), nullptr, 10);
    for (auto at = json.find("{\"point\": ", list); at != std::string::npos; at = json.find("{\"point\": ", at + 1)) {
        const auto end = json.find('}', at);
        const auto number = json_value(json, at, end, "point"), time = json_value(json, at, end, "time_s"),
                   len = json_value(json, at, end, "length"), root = json_value(json, at, end, "root");
        if (end == std::string::npos || !number || !time || !len || !root) return std::nullopt;
        const auto parsed_root = root_from_hex(*root);
        if (!parsed_root) return std::nullopt;
        history_point p;
        p.number = std::strtoull(number->c_str(), nullptr, 10);
        p.time_s = std::strtoll(time->c_str(), nullptr, 10);
        p.length = std::strtoull(len->c_str(), nullptr, 10);
        p.root = *parsed_root;
        h.points.push_back(p);
    }
    return h;
}

// A file read from its start through its descriptor (the temporary delta).
class fd_source final : public byte_source {
public:
    fd_source(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
    result<std::size_t> read_full(std::span<std::uint8_t> out) override {
        const ssize_t got = posix_io::pread_full(fd_, out.data(), out.size(), at_);
        if (got < 0) return fail(errc::io_error, name_ + ": " + std::strerror(errno));
        at_ += static_cast<std::uint64_t>(got);
        return static_cast<std::size_t>(got);
    }
    std::optional<std::uint64_t> size() const noexcept override { return std::nullopt; }
    const std::string& name() const noexcept override { return name_; }

private:
    int fd_;
    std::uint64_t at_ = 0;
    std::string name_;
};

std::uint64_t file_size(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

struct pull_stats {
    std::uint64_t history_bytes = 0;    ///< history --json received
    std::uint64_t signature_bytes = 0;  ///< LOCAL's signature sent (as on the wire)
    std::uint64_t delta_bytes = 0;      ///< the delta received (as on the wire)
    std::uint64_t delta_plain = 0;      ///< the delta's own length
    std::uint64_t image_bytes_written = 0;
    int sessions = 0;
    const char* mode = "in-place";  ///< in-place, or new-file (LOCAL did not exist)
    std::uint64_t wire() const noexcept { return history_bytes + signature_bytes + delta_bytes; }
};

class pull_run {
public:
    pull_run(const request& req, const invocation& inv, ssh_link link)
        : req_(req), inv_(inv), link_(std::move(link)), local_(req.files[1]) {}
    int run();

private:
    int fail(const std::string& message, int rc = exit_code(errc::io_error)) const;
    std::string where() const { return src_.host + ":" + src_.path; }
    std::string rdelta() const { return req_.remote_rdelta.empty() ? "rdelta" : req_.remote_rdelta; }
    compression_options wire_compression() const;
    std::string remote_failure(const char* what, const child_status& s) const;
    int remote(const char* what, const std::vector<std::string>& words, int in, int out);
    int ask_history();
    int local_signature(int sig_fd);
    std::vector<std::string> delta_words() const;
    int check_delta(int delta_fd);
    int apply_in_place(int delta_fd);
    int apply_new_file(int delta_fd);
    int finish() const;

    const request& req_;
    const invocation& inv_;
    ssh_link link_;
    const destination& src_ = link_.remote;
    const std::vector<std::string>& ssh_ = link_.ssh;
    std::string local_;
    remote_history history_;
    std::optional<history_point> point_;  // --at: the point brought back
    pull_stats stats_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

int pull_run::fail(const std::string& message, int rc) const {
    std::fprintf(stderr, "%s: pull: %s\n", inv_.prog.c_str(), message.c_str());
    return rc;
}

// As push's: zstd unless told otherwise, compressed by the remote rdelta.
compression_options pull_run::wire_compression() const {
    if (req_.no_compress) return {};
    if (req_.compression == codec::none) return {codec::zstd, default_level(codec::zstd), 0};
    return {req_.compression, req_.compression_level, 0};
}

std::string pull_run::remote_failure(const char* what, const child_status& s) const {
    return cli::remote_failure(ssh_.front(), src_.host, what, s);
}

// One ssh session running `words` there, `in` and `out` its standard streams; its
// stderr is shown (host first) when it fails, and then LOCAL was not touched.
int pull_run::remote(const char* what, const std::vector<std::string>& words, int in, int out) {
    posix_io::unique_fd err = temp_file();
    if (err.get() < 0) return fail(std::string("temporary file: ") + std::strerror(errno));
    const pid_t ssh = spawn(ssh_argv(link_, words), {in, out, err.get()});
    if (ssh < 0) return fail("cannot start " + ssh_.front() + ": " + std::strerror(errno));
    ++stats_.sessions;
    const child_status s = wait_child(ssh);
    if (s.ok()) return exit_success;
    replay_remote(src_.host, read_all(err.get()));
    return fail(remote_failure(what, s) + "; " + local_ + " was not changed", remote_exit_code(s));
}

int pull_run::ask_history() {
    posix_io::unique_fd out = temp_file(), none(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (out.get() < 0) return fail(std::string("temporary file: ") + std::strerror(errno));
    if (int rc = remote("rdelta history", {rdelta(), "history", "--json", "--", src_.path}, none.get(), out.get()))
        return rc;
    const std::string json = read_all(out.get());
    stats_.history_bytes = json.size();
    auto parsed = parse_history(json);
    if (!parsed) return fail("rdelta history --json on " + src_.host + " printed what this rdelta cannot read");
    history_ = std::move(*parsed);
    if (req_.at_point.empty()) return exit_success;
    std::string why;
    const auto number = resolve_point(req_.at_point, history_.points, why);
    if (!number) return fail(where() + ": " + why + "; " + local_ + " was not changed", exit_code(errc::param_error));
    point_ = history_.points[*number - 1];
    return exit_success;
}

// LOCAL's signature, compressed as the wire is, or an empty one (sized for what
// comes) when LOCAL does not exist.
int pull_run::local_signature(int sig_fd) {
    auto packed = compressing_writer::open(
        wire_compression(), "the signature sent", [&](std::span<const std::uint8_t> b) -> result<void> {
            if (const int e = posix_io::write_all(sig_fd, b.data(), b.size()))
                return rdelta::fail(errc::io_error, std::string("temporary file: ") + std::strerror(e));
            return {};
        });
    if (!packed) return fail(packed.err().message, exit_code(packed.err().code));
    const std::uint32_t magic = magic_of_format(sig_format{});
    struct stat st {};
    if (::stat(local_.c_str(), &st) != 0) {
        if (errno != ENOENT) return fail(local_ + ": " + std::strerror(errno));
        stats_.mode = "new-file";
        const std::uint64_t length = point_ ? point_->length : history_.length;
        auto params = resolve_sig_params({length, magic, 0, 0});
        if (!params) return fail(params.err().message, exit_code(params.err().code));
        auto bytes = make_signature({}, params->params);
        if (!bytes) return fail(bytes.err().message, exit_code(bytes.err().code));
        if (auto put = packed->write(*bytes); !put) return fail(put.err().message, exit_code(put.err().code));
    } else {
        auto in = input_file::open(local_);
        if (!in) return fail(in.err().message, exit_code(in.err().code));
        const std::uint64_t size = in->size().value_or(0);
        auto params = resolve_sig_params({size, magic, 0, 0});
        if (!params) return fail(params.err().message, exit_code(params.err().code));
        file_basis reader(*in);
        auto made = make_signature_from(reader, size, params->params, {}, packed->sink());
        if (!made) return fail(made.err().message, exit_code(made.err().code));
        if (auto same = in->check_unchanged(); !same) return fail(same.err().message, exit_code(same.err().code));
    }
    if (auto done = packed->finish(); !done) return fail(done.err().message, exit_code(done.err().code));
    stats_.signature_bytes = file_size(sig_fd);
    ::lseek(sig_fd, 0, SEEK_SET);
    return exit_success;
}

// The remote command that writes the delta from the signature on its standard
// input to the point (or the image), compressed for the wire, on its standard output.
std::vector<std::string> pull_run::delta_words() const {
    std::vector<std::string> w{rdelta()};
    if (point_)
        for (const char* s : {"restore", "--delta-against", "-"}) w.emplace_back(s);
    else
        for (const char* s : {"delta", "--in-place-safe"}) w.emplace_back(s);
    w.emplace_back("-q");
    const compression_options c = wire_compression();
    if (c.kind != codec::none) w.push_back("--" + std::string(codec_name(c.kind)) + "=" + std::to_string(c.level));
    if (c.kind == codec::zstd && c.level > 19) w.emplace_back("--ultra");
    w.emplace_back("--");
    if (point_) {
        w.push_back(src_.path);
        w.push_back(std::to_string(point_->number));
    } else {
        w.emplace_back("-");
        w.push_back(src_.path);
    }
    w.emplace_back("-");
    return w;
}

// The delta must end in a chunked trailer, and with --at name the point's root: the
// remote image may have been patched (its points renumbered) since history ran.
int pull_run::check_delta(int delta_fd) {
    stats_.delta_bytes = file_size(delta_fd);
    fd_source raw(delta_fd, "the delta from " + where());
    auto in = decompressing_reader::open(raw);
    if (!in) return fail(in.err().message, exit_code(in.err().code));
    std::vector<std::uint8_t> buf(std::size_t{256} << 10), tail;
    for (;;) {
        auto got = in->read_full(buf);
        if (!got) return fail(got.err().message, exit_code(got.err().code));
        if (*got == 0) break;
        stats_.delta_plain += *got;
        tail.insert(tail.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*got));
        if (tail.size() > 64) tail.erase(tail.begin(), tail.end() - 64);
    }
    const auto root = delta_output_root(tail);
    if (!root)
        return fail(
            "the delta from " + where() + " ends in no chunked checksum trailer; " + local_ + " was not changed",
            exit_code(errc::corrupt));
    if (point_ && *root != point_->root)
        return fail("the delta from " + where() + " makes chunk root " + root_to_hex(*root) + ", not point " +
                        std::to_string(point_->number) + "'s " + root_to_hex(point_->root) + " (did " + src_.path +
                        " change meanwhile?); " + local_ + " was not changed",
                    exit_code(errc::corrupt));
    return exit_success;
}

int pull_run::apply_in_place(int delta_fd) {
    auto opener = make_delta_opener("/proc/self/fd/" + std::to_string(delta_fd));
    if (!opener) return fail(opener.err().message, exit_code(opener.err().code));
    update_options o;
    o.patch.patch.require_checksum = true;
    o.patch.patch.delta_name = "the delta from " + where();
    o.on_recovered = [this](const recovery_result&, const std::string& journal) {
        if (!req_.quiet)
            std::fprintf(stderr, "%s: pull: %s: recovered an interrupted in-place patch (%s) first\n",
                         inv_.prog.c_str(), local_.c_str(), journal.c_str());
    };
    auto done = update_in_place(local_, *opener, o);
    if (!done) return fail(describe(inv_, done.err()), exit_code(done.err().code));
    stats_.image_bytes_written = done->stats.image_bytes_written;
    return exit_success;
}

// LOCAL did not exist: `rdelta patch` writes it whole from the delta against an
// empty file, verified, published atomically, never over a file that appeared.
int pull_run::apply_new_file(int delta_fd) {
    ::lseek(delta_fd, 0, SEEK_SET);
    const std::vector<std::string> argv{"/proc/self/exe", "patch",     "--verify", "-q", "--fsync", "--",
                                        "/dev/null",      "/dev/fd/3", local_};
    const pid_t patch = spawn(argv, {-1, -1, -1, delta_fd});
    if (patch < 0) return fail(std::string("cannot start rdelta patch: ") + std::strerror(errno));
    const child_status s = wait_child(patch);
    if (!s.ok()) return fail("writing " + local_ + " failed (rdelta patch " + s.describe() + ")", remote_exit_code(s));
    stats_.image_bytes_written = point_ ? point_->length : history_.length;
    return exit_success;
}

int pull_run::finish() const {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::uint64_t image = point_ ? point_->length : history_.length;
    const std::string what = point_ ? "point " + std::to_string(point_->number) + " of " + where() : where();
    if (!req_.quiet)
        std::fprintf(stderr,
                     "%s: pull: pulled %s onto %s (%s): %s over the wire for %s (%.2f%%: sent %s of signature, "
                     "received %s of delta), verified; %.2f s\n",
                     inv_.prog.c_str(), what.c_str(), local_.c_str(), stats_.mode, human_bytes(stats_.wire()).c_str(),
                     human_bytes(image).c_str(),
                     image ? 100.0 * static_cast<double>(stats_.wire()) / static_cast<double>(image) : 0.0,
                     human_bytes(stats_.signature_bytes).c_str(), human_bytes(stats_.delta_bytes).c_str(), secs);
    if (req_.json)
        std::fprintf(
            stderr,
            "{\"command\": \"pull\", \"mode\": \"%s\", \"point\": %s, \"compression\": \"%s\", "
            "\"wire_bytes\": %" PRIu64 ", \"signature_bytes\": %" PRIu64 ", \"delta_bytes\": %" PRIu64
            ", \"delta_uncompressed_bytes\": %" PRIu64 ", \"history_bytes\": %" PRIu64 ", \"image_bytes\": %" PRIu64
            ", \"image_bytes_written\": %" PRIu64 ", \"ssh_sessions\": %d, \"elapsed_s\": %.3f}\n",
            stats_.mode, point_ ? std::to_string(point_->number).c_str() : "null", codec_name(wire_compression().kind),
            stats_.wire(), stats_.signature_bytes, stats_.delta_bytes, stats_.delta_plain, stats_.history_bytes, image,
            stats_.image_bytes_written, stats_.sessions, secs);
    return exit_success;
}

int pull_run::run() {
    if (int rc = ask_history()) return rc;
    posix_io::unique_fd sig = temp_file(), delta = temp_file();
    if (sig.get() < 0 || delta.get() < 0) return fail(std::string("temporary file: ") + std::strerror(errno));
    if (int rc = local_signature(sig.get())) return rc;
    const char* what = point_ ? "rdelta restore --delta-against" : "rdelta delta";
    if (int rc = remote(what, delta_words(), sig.get(), delta.get())) return rc;
    if (int rc = check_delta(delta.get())) return rc;
    const bool new_file = std::strcmp(stats_.mode, "new-file") == 0;
    if (int rc = new_file ? apply_new_file(delta.get()) : apply_in_place(delta.get())) return rc;
    return finish();
}

}  // namespace

int pull_command(const request& req, const invocation& inv) {
    if (is_std_stream(req.files[1])) return report_usage(inv, "pull needs LOCAL as a file, not standard output ('-')");
    int rc = exit_success;
    auto link = parse_ssh_link(req, inv, "pull", req.files[0], rc);
    if (!link) return rc;
    std::signal(SIGPIPE, SIG_IGN);
    return pull_run(req, inv, std::move(*link)).run();
}

}  // namespace rdelta::cli
