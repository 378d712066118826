// push_command.cpp - `rdelta push IMAGE [USER@]HOST:PATH`: the nightly recipe of the
// README (delta --new-signature here, patch --in-place --verify there, the kept
// signature rotated only after the remote verified) as one command.
//
// Every piece is rdelta itself: this process starts `rdelta delta` (the running
// binary, /proc/self/exe) and, through ssh, `rdelta patch` or `rdelta signature` on
// the remote host, and copies the delta from one to the other, counting what goes
// on the wire. The kept signature describes what the remote holds. When the remote
// holds something else (a run whose success never came back, a lost or stale kept
// signature), its patch refuses the delta without changing the image (the checksum
// trailer does not match: 106, or a COPY past its end: 103), and push then fetches
// the remote's own signature and makes the delta against that. Every remote command
// gets --name-in-dir and the image's name: a PATH that is a directory there takes
// the image inside it, resolved there (target_folder.hpp).
#include "push_command.hpp"

#include "exit_codes.hpp"
#include "push_io.hpp"
#include "push_store.hpp"
#include "ssh_session.hpp"
#include "target_folder.hpp"

#include <rdelta/basis_root.hpp>
#include <rdelta/compression.hpp>
#include <rdelta/file.hpp>
#include <rdelta/format.hpp>
#include <rdelta/signature.hpp>

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

using posix_io::unique_fd;

struct push_stats {
    std::uint64_t delta_bytes = 0;      ///< delta bytes written into ssh
    std::uint64_t signature_bytes = 0;  ///< signature bytes read from ssh
    int sessions = 0;                   ///< ssh connections made
    const char* mode = "in-place";      ///< in-place, resync (remote signature fetched) or new-file
};

// The outcome of one ssh session: push's exit status so far, and whether the remote
// rdelta refused the delta as not made for what it holds (its stderr kept to show
// should push not recover).
struct session_result {
    int rc = 0;
    bool refused = false;
    std::string remote_text;
    bool bad_signature = false;  ///< the local delta could not read the signature (nothing sent)
    child_status delta;          ///< how the local delta ended
};

// The image's name as given, without its folder: what scp and rsync call the copy
// they put in a directory.
std::string last_name(std::string path) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

class push_run {
public:
    push_run(const request& req, const invocation& inv, ssh_link link)
        : req_(req), inv_(inv), link_(std::move(link)), image_(req.files[0]), image_name_(last_name(image_)) {}
    int run();

private:
    int fail(const std::string& message, int rc = exit_code(errc::io_error)) const;
    int open_store();
    unique_fd open_kept(int& rc);
    int delta_failed(const child_status& delta) const;
    void warn_dropped(const std::string& why);
    std::vector<std::string> delta_argv() const;
    compression_options wire_compression() const;
    std::vector<std::string> remote_words(const char* command) const;
    std::vector<std::string> patch_words(bool new_file) const;
    std::optional<std::string> folder_trouble(const child_status& remote, const std::string& text) const;
    session_result send(int basis_fd, bool new_file);
    std::string remote_failure(const char* what, const child_status& s) const;
    session_result judge(const child_status& delta, const child_status& ssh, bool ssh_gone,
                         std::string remote_text) const;
    enum class fetched { ok, absent, failed };
    fetched fetch(unique_fd& sig, int& rc, bool may_recover = true);
    void recover_remote();
    unique_fd empty_signature(int& rc) const;
    int finish();

    const request& req_;
    const invocation& inv_;
    ssh_link link_;
    const destination& dest_ = link_.remote;
    const std::vector<std::string>& ssh_ = link_.ssh;
    std::string image_;
    std::string image_name_;  // what the image is called inside a remote directory
    std::optional<push_store> store_;
    std::optional<chunk_root> basis_root_;  // what the kept signature's image was: the delta names it
    std::vector<std::uint8_t> delta_tail_;  // the last delta's trailer: the new image's root
    push_stats stats_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

int push_run::fail(const std::string& message, int rc) const {
    std::fprintf(stderr, "%s: push: %s\n", inv_.prog.c_str(), message.c_str());
    return rc;
}

// Find the kept signature's file, check its folder and lock it (push_store.hpp).
int push_run::open_store() {
    char* real = ::realpath(image_.c_str(), nullptr);
    if (!real) return fail(image_ + ": " + std::strerror(errno));
    const std::string image_real = real;
    std::free(real);
    std::string path = req_.signature_store;
    if (path.empty()) {
        auto found = default_store(image_real, req_.files[1]);
        if (!found)
            return fail(
                "no place to keep the remote image's signature ($HOME/.cache/rdelta/push cannot be made): "
                "give --signature-store FILE");
        path = *found;
    }
    auto opened = push_store::open(path);
    if (!opened) return fail(opened.err().message, exit_code(opened.err().code));
    store_.emplace(std::move(*opened));
    return exit_success;
}

// The kept signature, or -1 when there is none or it is no signature: a garbage
// store would otherwise fail every run, so it is dropped and the remote's fetched.
unique_fd push_run::open_kept(int& rc) {
    auto kept = store_->open_kept();
    if (!kept) return rc = fail(kept.err().message, exit_code(kept.err().code)), unique_fd();
    if (kept->get() < 0) return unique_fd();
    if (const auto why = push_store::not_a_signature(kept->get()); !why.empty()) {
        warn_dropped("not a signature (" + why + ")");
        return unique_fd();
    }
    return std::move(*kept);
}

void push_run::warn_dropped(const std::string& why) {
    store_->drop();
    stats_.mode = "resync";
    if (!req_.quiet)
        std::fprintf(stderr, "%s: push: %s: %s: dropped; fetching the signature of %s:%s\n", inv_.prog.c_str(),
                     store_->path().c_str(), why.c_str(), dest_.host.c_str(), dest_.path.c_str());
}

// This very binary makes the delta and tomorrow's signature in one read of the image;
// the signature to delta against comes on its standard input.
std::vector<std::string> push_run::delta_argv() const {
    // The next signature goes into the file the store made, passed as descriptor 3.
    std::vector<std::string> a{"/proc/self/exe", "delta", "--in-place-safe", "-f", "--new-signature", "/dev/fd/3"};
    if (req_.quiet) a.emplace_back("-q");
    if (req_.progress) a.emplace_back(*req_.progress ? "--progress" : "--no-progress");
    if (req_.statistics) a.emplace_back("-s");
    if (req_.nocache) a.emplace_back("--nocache");
    if (req_.threads > 0) a.push_back("--threads=" + std::to_string(req_.threads));
    if (req_.max_strong_work >= 0) a.push_back("--max-strong-work=" + std::to_string(req_.max_strong_work));
    if (basis_root_) a.push_back("--basis-root=" + root_to_hex(*basis_root_));
    for (const char* w : {"--", "-"}) a.emplace_back(w);
    a.push_back(image_);
    a.emplace_back("-");
    return a;
}

// The delta crosses the wire compressed, zstd unless told otherwise, as rsync -z:
// the first push's literal data and the zeros of the image's holes cost little.
// This process compresses, not the delta: it reads the delta's trailer (the new
// image's root) on the way, and compresses on another core than the scan's.
compression_options push_run::wire_compression() const {
    if (req_.no_compress) return {};
    const auto threads = static_cast<unsigned>(req_.threads);  // 0 to 1024 (push_command)
    if (req_.compression == codec::none) return {codec::zstd, default_level(codec::zstd), threads};
    return {req_.compression, req_.compression_level, threads};
}

// A remote rdelta command: PATH there is resolved there, into the image's name
// when it is a directory (target_folder.hpp).
std::vector<std::string> push_run::remote_words(const char* command) const {
    return {req_.remote_rdelta.empty() ? "rdelta" : req_.remote_rdelta, command, "--name-in-dir", image_name_};
}

// The remote patch: in place under its journal, or (no file there yet) a new file
// published whole, never over one that appeared meanwhile (no -f).
std::vector<std::string> push_run::patch_words(bool new_file) const {
    std::vector<std::string> w = remote_words("patch");
    for (const char* s : {"--verify", "-q"}) w.emplace_back(s);
    if (req_.nocache) w.emplace_back("--nocache");
    if (new_file) {
        for (const char* s : {"--fsync", "--", "/dev/null", "-"}) w.emplace_back(s);
        w.push_back(dest_.path);
    } else {
        // --keep-history: the remote image as it was stays there as a restore point.
        if (req_.keep_history) w.emplace_back("--keep-history");
        for (const char* s : {"--in-place", "--"}) w.emplace_back(s);
        w.push_back(dest_.path);
        w.emplace_back("-");
    }
    return w;
}

// One delta from the image against `basis_fd`, streamed through ssh into the remote
// patch.
session_result push_run::send(int basis_fd, bool new_file) {
    int delta_pipe[2], ssh_pipe[2];
    if (::pipe2(delta_pipe, O_CLOEXEC) != 0) return {fail(std::string("pipe: ") + std::strerror(errno))};
    unique_fd delta_out(delta_pipe[0]), delta_in(delta_pipe[1]);
    if (::pipe2(ssh_pipe, O_CLOEXEC) != 0) return {fail(std::string("pipe: ") + std::strerror(errno))};
    unique_fd ssh_out(ssh_pipe[0]), ssh_in(ssh_pipe[1]);
    unique_fd remote_err = temp_file();
    auto next = store_->next();
    if (!next) return {fail(next.err().message, exit_code(next.err().code))};
    ::lseek(basis_fd, 0, SEEK_SET);
    const pid_t delta = spawn(delta_argv(), {basis_fd, delta_in.get(), -1, *next});
    if (delta < 0) return {fail(std::string("cannot start rdelta delta: ") + std::strerror(errno))};
    delta_in.reset();
    const pid_t ssh = spawn(ssh_argv(link_, patch_words(new_file)), {ssh_out.get(), -1, remote_err.get()});
    if (ssh < 0) {
        const int e = errno;
        delta_out.reset();  // the delta stops on a broken pipe
        wait_child(delta);
        return {fail("cannot start " + ssh_.front() + ": " + std::strerror(e))};
    }
    ++stats_.sessions;
    ssh_out.reset();
    delta_tail_.clear();
    const copy_outcome copied =
        copy_stream(delta_out.get(), ssh_in.get(), wire_compression(), stats_.delta_bytes, &delta_tail_);
    delta_out.reset();
    const child_status made = wait_child(delta);
    // A failed delta must reach the remote as a dropped connection, never as a
    // stream that merely ends (a cut delta is refused there anyway: no END).
    if (!made.ok() || copied.failed) ::kill(ssh, SIGTERM);
    ssh_in.reset();
    const child_status remote = wait_child(ssh);
    if (copied.failed)
        return {fail(copied.failed->message + "; " + dest_.host + ":" + dest_.path + " was not changed",
                     exit_code(copied.failed->code))};
    return judge(made, remote, copied.to_refused, remote_err.get() >= 0 ? read_all(remote_err.get()) : std::string());
}

session_result push_run::judge(const child_status& delta, const child_status& ssh, bool ssh_gone,
                               std::string remote_text) const {
    const std::string where = dest_.host + ":" + dest_.path;
    if (!delta.ok() && !ssh_gone) {
        // A signature it cannot read (truncated 103, magic 104, corrupt 106,
        // parameters 108): the caller decides whether another one may be fetched.
        const int code = delta.exit_code;
        if (code == 103 || code == 104 || code == 106 || code == 108)
            return {remote_exit_code(delta), false, {}, true, delta};
        return {delta_failed(delta)};
    }
    if (ssh.ok() && delta.ok()) {
        if (!req_.quiet) replay_remote(dest_.host, remote_text);
        return {exit_success};
    }
    if (auto why = folder_trouble(ssh, remote_text)) return {fail(*why, remote_exit_code(ssh))};
    // Refused unchanged: made for another state (106: the result would not match the
    // trailer; 103: a COPY past its end), or the file is gone (a full copy follows).
    const bool gone = ssh.exit_code == 100 && remote_text.find("No such file or directory") != std::string::npos;
    if (ssh.exit_code == 103 || ssh.exit_code == 106 || gone)
        return {remote_exit_code(ssh), true, std::move(remote_text)};
    replay_remote(dest_.host, remote_text);
    if (ssh.ok())  // the remote patch succeeded on what it received, yet the delta failed: impossible
        return {
            fail("rdelta delta " + delta.describe() + " after the remote patch succeeded", remote_exit_code(delta))};
    return {fail(remote_failure("rdelta patch", ssh) + (ssh.exit_code == 255 || ssh.exit_code < 0
                                                            ? "; " + where +
                                                                  " is unchanged, or its journal rolls it back "
                                                                  "on the next push"
                                                            : std::string()),
                 remote_exit_code(ssh))};
}

int push_run::delta_failed(const child_status& delta) const {
    // rdelta delta said what went wrong on the line above; the remote saw no END.
    return fail("making the delta of " + image_ + " failed (rdelta delta " + delta.describe() + "); " + dest_.host +
                    ":" + dest_.path + " was not changed",
                remote_exit_code(delta));
}

// The remote rdelta's own words for a folder that is missing or no folder
// (target_folder.hpp), said as push's one line: no fetch or full copy can help.
std::optional<std::string> push_run::folder_trouble(const child_status& remote, const std::string& text) const {
    if (remote.exit_code != exit_code(errc::io_error)) return std::nullopt;
    const std::string folder = folder_of_target(dest_.path);
    for (const folder_problem p : {folder_problem::missing, folder_problem::not_a_folder}) {
        const std::string words = folder_problem_words(p, folder);
        if (text.find(": " + words + "\n") != std::string::npos)
            return dest_.host + ":" + dest_.path + ": remote " + words;
    }
    return std::nullopt;
}

// Why an ssh session failed (ssh_session.hpp), ssh named as the user knows it.
std::string push_run::remote_failure(const char* what, const child_status& s) const {
    const auto slash = ssh_.front().rfind('/');
    const std::string ssh = ssh_.front().substr(slash == std::string::npos ? 0 : slash + 1) == "ssh"
                                ? std::string("ssh")
                                : "ssh command " + ssh_.front();
    return cli::remote_failure(ssh, dest_.host, what, s);
}

// The remote image's signature, with the command line's -b, -S, -H and -R.
push_run::fetched push_run::fetch(unique_fd& sig, int& rc, bool may_recover) {
    std::vector<std::string> w = remote_words("signature");
    for (const std::string& s : {std::string("-q"), "--hash=" + req_.hash, "--rollsum=" + req_.rollsum}) w.push_back(s);
    if (req_.block_size != 0) w.push_back("--block-size=" + std::to_string(req_.block_size));
    if (req_.sum_size != 0) w.push_back("--sum-size=" + std::to_string(req_.sum_size));
    if (req_.nocache) w.emplace_back("--nocache");
    w.emplace_back("--");
    w.push_back(dest_.path);
    w.emplace_back("-");
    sig = temp_file();
    unique_fd err = temp_file(), none(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (sig.get() < 0 || err.get() < 0)
        return rc = fail(std::string("temporary file: ") + std::strerror(errno)), fetched::failed;
    const pid_t ssh = spawn(ssh_argv(link_, w), {none.get(), sig.get(), err.get()});
    if (ssh < 0) return rc = fail("cannot start " + ssh_.front() + ": " + std::strerror(errno)), fetched::failed;
    ++stats_.sessions;
    const child_status s = wait_child(ssh);
    const std::string text = read_all(err.get());
    struct stat st {};
    if (s.ok() && ::fstat(sig.get(), &st) == 0) {
        stats_.signature_bytes += static_cast<std::uint64_t>(st.st_size);
        return fetched::ok;
    }
    if (auto why = folder_trouble(s, text)) return rc = fail(*why, remote_exit_code(s)), fetched::failed;
    // rdelta's own message for a missing input; a file that appears meanwhile is still
    // safe, as the new-file patch does not replace one.
    if (s.exit_code == 100 && text.find("No such file or directory") != std::string::npos) return fetched::absent;
    // An interrupted patch left its journal there (signature refuses a half-patched
    // image and names `rdelta recover`): roll it back, then ask again.
    if (s.exit_code == 100 && may_recover && text.find("rdelta recover") != std::string::npos) {
        recover_remote();
        return fetch(sig, rc, false);
    }
    replay_remote(dest_.host, text);
    rc = fail("fetching the signature of " + dest_.host + ":" + dest_.path +
                  " failed: " + remote_failure("rdelta signature", s),
              remote_exit_code(s));
    return fetched::failed;
}

void push_run::recover_remote() {
    std::vector<std::string> w = remote_words("recover");
    for (const std::string& s : {std::string("--"), dest_.path}) w.push_back(s);
    unique_fd err = temp_file(), none(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    const pid_t ssh = spawn(ssh_argv(link_, w), {none.get(), -1, err.get()});
    if (ssh < 0) return;
    ++stats_.sessions;
    wait_child(ssh);
    if (err.get() >= 0) replay_remote(dest_.host, read_all(err.get()));
}

// A signature with no blocks, with the parameters `rdelta signature IMAGE` would
// choose: the first delta is all literals, and the signature it writes alongside
// has the parameters the image's size calls for.
unique_fd push_run::empty_signature(int& rc) const {
    sig_format format;
    format.strong = req_.hash == "md4" ? strong_kind::md4 : strong_kind::blake2;
    format.weak = req_.rollsum == "rollsum" ? weak_kind::rollsum : weak_kind::rabinkarp;
    unique_fd image(::open(image_.c_str(), O_RDONLY | O_CLOEXEC));
    const off_t size = image.get() >= 0 ? ::lseek(image.get(), 0, SEEK_END) : -1;
    if (size < 0) return rc = fail(image_ + ": " + std::strerror(errno)), unique_fd();
    auto params = resolve_sig_params({static_cast<std::uint64_t>(size), magic_of_format(format),
                                      static_cast<std::uint64_t>(req_.block_size), req_.sum_size});
    if (!params) return rc = fail(params.err().message, exit_code(params.err().code)), unique_fd();
    auto bytes = make_signature({}, params->params);
    if (!bytes) return rc = fail(bytes.err().message, exit_code(bytes.err().code)), unique_fd();
    unique_fd sig = temp_file();
    const int err = sig ? posix_io::write_all(sig.get(), bytes->data(), bytes->size()) : errno ? errno : EIO;
    if (err != 0) return rc = fail(std::string("temporary file: ") + std::strerror(err)), unique_fd();
    return sig;
}

// The remote image holds the new state: its signature becomes the kept one.
int push_run::finish() {
    if (auto kept = store_->commit_next(); !kept) {
        store_->drop();  // stale now: the next push fetches the remote's instead
        return fail(dest_.host + ":" + dest_.path +
                    " is up to date, but keeping its signature failed: " + kept.err().message);
    }
    // The remote image's root beside its signature: the next delta names it, so the
    // remote refuses it if its image is not that one (a lost or repeated night).
    if (const auto root = delta_output_root(delta_tail_))
        if (auto noted = write_basis_root(store_->path(), *root, true); !noted && !req_.quiet)
            std::fprintf(stderr, "%s: push: warning: the remote image's root was not kept beside %s: %s\n",
                         inv_.prog.c_str(), store_->path().c_str(), noted.err().message.c_str());
    struct stat st {};
    const std::uint64_t image_bytes = ::stat(image_.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (!req_.quiet)
        std::fprintf(
            stderr,
            "%s: push: %s -> %s:%s (%s): sent %s of delta for %s (%.2f%%), fetched %s of signature, "
            "verified; %.2f s\n",
            inv_.prog.c_str(), image_.c_str(), dest_.host.c_str(), dest_.path.c_str(), stats_.mode,
            human_bytes(stats_.delta_bytes).c_str(), human_bytes(image_bytes).c_str(),
            image_bytes ? 100.0 * static_cast<double>(stats_.delta_bytes) / static_cast<double>(image_bytes) : 0.0,
            human_bytes(stats_.signature_bytes).c_str(), secs);
    if (req_.statistics)
        std::fprintf(stderr,
                     "%s: push: %" PRIu64 " delta bytes sent, %" PRIu64
                     " signature bytes fetched, %d ssh sessions, "
                     "kept signature %s\n",
                     inv_.prog.c_str(), stats_.delta_bytes, stats_.signature_bytes, stats_.sessions,
                     store_->path().c_str());
    if (req_.json)
        std::fprintf(stderr,
                     "{\"command\": \"push\", \"mode\": \"%s\", \"compression\": \"%s\", \"delta_bytes\": %" PRIu64
                     ", \"signature_bytes\": %" PRIu64 ", \"image_bytes\": %" PRIu64
                     ", \"ssh_sessions\": %d, \"elapsed_s\": %.3f}\n",
                     stats_.mode, codec_name(wire_compression().kind), stats_.delta_bytes, stats_.signature_bytes,
                     image_bytes, stats_.sessions, secs);
    return exit_success;
}

int push_run::run() {
    if (int rc = open_store()) return rc;
    int rc = exit_success;
    unique_fd kept = open_kept(rc);
    if (rc != exit_success) return rc;
    if (kept.get() >= 0) {
        basis_root_ = read_basis_root(store_->path());
        session_result first = send(kept.get(), false);
        basis_root_.reset();  // a signature fetched or made below has no root kept
        if (first.bad_signature) {
            warn_dropped("rdelta delta could not read it (" + first.delta.describe() + ")");
        } else if (!first.refused) {
            return first.rc == exit_success ? finish() : first.rc;
        } else {
            // Nothing changed there: the remote holds another state than the kept signature's.
            if (!req_.quiet)
                std::fprintf(stderr,
                             "%s: push: %s:%s does not hold what %s describes (its patch exited with %d, "
                             "unchanged): fetching its signature\n",
                             inv_.prog.c_str(), dest_.host.c_str(), dest_.path.c_str(), store_->path().c_str(),
                             first.rc);
            stats_.mode = "resync";
        }
    }
    unique_fd basis;
    fetched got = fetch(basis, rc);
    if (got == fetched::failed) return rc;
    const bool new_file = got == fetched::absent;
    if (new_file) {
        stats_.mode = "new-file";
        basis = empty_signature(rc);
        if (basis.get() < 0) return rc;
    }
    session_result second = send(basis.get(), new_file);
    if (second.bad_signature) return delta_failed(second.delta);
    if (second.refused) {
        replay_remote(dest_.host, second.remote_text);
        return fail("rdelta patch on " + dest_.host + " refused the delta made against its own signature (exit " +
                        std::to_string(second.rc) + "): did " + dest_.path + " change meanwhile?",
                    second.rc);
    }
    return second.rc == exit_success ? finish() : second.rc;
}

}  // namespace

int push_command(const request& req, const invocation& inv) {
    if (is_std_stream(req.files[0])) return report_usage(inv, "push needs IMAGE as a file, not standard input ('-')");
    int rc = exit_success;
    auto link = parse_ssh_link(req, inv, "push", req.files[1], rc);
    if (!link) return rc;
    if (req.threads < 0 || req.threads > 1024)
        return report_usage(inv, "Thread count (-j) must be 0 (all cores) to 1024.");
    if (req.hash != "blake2" && req.hash != "md4")
        return report_usage(inv, "Unknown hash algorithm '" + req.hash + "'.");
    if (req.rollsum != "rabinkarp" && req.rollsum != "rollsum")
        return report_usage(inv, "Unknown rollsum algorithm '" + req.rollsum + "'.");
    // A write into ssh after it ended must fail with EPIPE, not end this process
    // before it can say so (children get the default back).
    std::signal(SIGPIPE, SIG_IGN);
    return push_run(req, inv, std::move(*link)).run();
}

}  // namespace rdelta::cli
