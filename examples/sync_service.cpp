// sync_service.cpp - a file kept in sync over TCP, rsync style: the client sends
// the signature of the copy it has, the server streams back the delta of its own
// file against it, and the client patches its copy into the new one.
//
//   sync_service serve FILE [CLIENTS]   listen on 127.0.0.1 (a free port, printed as
//                                       "port N"), serve CLIENTS syncs (default 1), exit
//   sync_service fetch PORT OLD OUT     make OUT the server's FILE, from the copy OLD
//
// The protocol is two plain streams, no framing: the client sends the signature
// and shuts down its side of the connection (the server reads the end of the
// signature); the server sends the delta, with the checksum trailer, and closes.
// Both ends are one thread over non-blocking sockets and poll(). Jobs never block:
// one is fed what the socket delivered (job_pump::push) or asked for only as much
// output as the socket can take (job::iterate), so the server serves all its
// clients at once from one loop, in memory bounded per client.
#include <rdelta/rdelta.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace rdelta;

namespace {

constexpr std::size_t piece = 64 << 10;  // what one send() or recv() moves at most

error socket_error(const std::string& what) {
    return fail(errc::io_error, what + ": " + std::strerror(errno));
}

// A job's output sent to a socket: the job reads `in` and makes output only
// when the previous piece has been sent, so a slow peer slows the job down.
class outgoing {
public:
    outgoing(byte_source& in, std::unique_ptr<job> j) : in_(in), job_(std::move(j)), in_buf_(piece), out_buf_(piece) {}

    // Call when the socket is writable. True once everything has been sent.
    result<bool> send_some(int fd) {
        for (;;) {
            while (out_at_ < out_end_) {
                const ssize_t n = ::send(fd, out_buf_.data() + out_at_, out_end_ - out_at_, MSG_NOSIGNAL);
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;  // poll() again
                if (n < 0 && errno != EINTR) return socket_error("send");
                if (n > 0) out_at_ += static_cast<std::size_t>(n), sent += static_cast<std::size_t>(n);
            }
            if (done_) return true;
            if (in_at_ == in_end_ && !in_eof_) {  // the job took all we read: read on
                auto got = in_.read_full(in_buf_);
                if (!got) return std::move(got).err();
                in_at_ = 0, in_end_ = *got, in_eof_ = *got < in_buf_.size();
            }
            buffers io{in_buf_.data() + in_at_, in_end_ - in_at_, in_eof_, out_buf_.data(), out_buf_.size()};
            auto status = job_->iterate(io);
            if (!status) return std::move(status).err();
            in_at_ = static_cast<std::size_t>(io.next_in - in_buf_.data());
            out_at_ = 0, out_end_ = static_cast<std::size_t>(io.next_out - out_buf_.data());
            done_ = *status == job_status::done;
        }
    }

    std::uint64_t sent = 0;

private:
    byte_source& in_;
    std::unique_ptr<job> job_;
    std::vector<std::uint8_t> in_buf_, out_buf_;
    std::size_t in_at_ = 0, in_end_ = 0, out_at_ = 0, out_end_ = 0;
    bool in_eof_ = false, done_ = false;
};

// What a socket delivers, pushed into a job as it arrives; the job's output goes
// to `out`. The end of the stream (the peer's shutdown) ends the job's input.
class incoming {
public:
    incoming(job& j, byte_sink out) : pump_(j, std::move(out)), buf_(piece) {}

    // Call when the socket is readable. True once the peer has finished and the job is done.
    result<bool> receive_some(int fd) {
        for (;;) {
            const ssize_t n = ::recv(fd, buf_.data(), buf_.size(), 0);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return socket_error("recv");
            received += static_cast<std::size_t>(n);
            auto status = pump_.push({buf_.data(), static_cast<std::size_t>(n)}, n == 0);
            if (!status) return std::move(status).err();
            if (n == 0) return true;  // at the end of its input a job is done, or failed
        }
    }

    std::uint64_t received = 0;

private:
    job_pump pump_;
    std::vector<std::uint8_t> buf_;
};

// ---- the server --------------------------------------------------------------

// One client: its signature comes in, then the delta goes out. (A service open
// to strangers would also cap the bytes of signature it accepts.)
struct session {
    explicit session(int socket) : fd(socket) {}
    ~session() { ::close(fd); }

    int fd;
    signature sig;
    std::unique_ptr<job> loader = make_loadsig_job(&sig, "the client's signature");
    incoming signature_in{*loader, {}};  // loading a signature writes nothing
    std::optional<input_file> file;      // opened per client: each delta reads one version
    std::optional<outgoing> delta_out;
};

// Called when the session's socket is ready. True once the session has finished.
result<bool> serve_step(session& s, const std::string& path) {
    if (!s.delta_out) {
        auto loaded = s.signature_in.receive_some(s.fd);
        if (!loaded || !*loaded) return loaded;
        if (auto indexed = s.sig.build_index(); !indexed) return std::move(indexed).err();
        auto file = input_file::open(path);
        if (!file) return std::move(file).err();
        s.file.emplace(std::move(*file));
        // delta_options' defaults: the checksum trailer the client verifies, and a
        // work budget, since the signature comes from a peer we do not trust.
        s.delta_out.emplace(*s.file, make_delta_job(s.sig));
    }
    auto sent = s.delta_out->send_some(s.fd);
    if (sent && *sent)
        std::fprintf(stderr, "served: received %llu bytes of signature, sent %llu bytes of delta\n",
                     (unsigned long long)s.signature_in.received, (unsigned long long)s.delta_out->sent);
    return sent;
}

result<int> listen_on_free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return socket_error("socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;  // the kernel picks a free port: parallel tests never collide
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        auto failed = socket_error("listen on 127.0.0.1");
        ::close(fd);
        return failed;
    }
    std::printf("port %d\n", ntohs(addr.sin_port));
    std::fflush(stdout);  // the client's side reads it before we serve anyone
    return fd;
}

int serve(const std::string& path, int clients) {
    auto listener = listen_on_free_port();
    if (!listener) return std::fprintf(stderr, "serve: %s\n", listener.err().message.c_str()), 1;
    std::vector<std::unique_ptr<session>> sessions;  // jobs point into a session: it never moves
    int served = 0, failed = 0;
    while (served < clients) {
        // Wait for a connection or for any client's socket; sessions still loading
        // their signature wait to read, those sending their delta to write.
        std::vector<pollfd> fds{{*listener, POLLIN, 0}};
        for (const auto& s : sessions) fds.push_back({s->fd, short(s->delta_out ? POLLOUT : POLLIN), 0});
        if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return std::perror("poll"), 1;
        if (fds[0].revents & POLLIN) {
            const int fd = ::accept4(*listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd >= 0) sessions.push_back(std::make_unique<session>(fd));
        }
        for (std::size_t i = fds.size() - 1; i > 0; --i) {  // backwards: finished sessions are erased
            if (fds[i].revents == 0) continue;
            auto finished = serve_step(*sessions[i - 1], path);
            if (finished && !*finished) continue;
            if (!finished) std::fprintf(stderr, "serve: a client failed: %s\n", finished.err().message.c_str());
            failed += !finished;
            ++served;
            sessions.erase(sessions.begin() + static_cast<long>(i - 1));  // closes the socket
        }
    }
    ::close(*listener);
    return failed ? 1 : 0;
}

// ---- the client --------------------------------------------------------------

result<void> wait_for(int fd, short events) {
    pollfd p{fd, events, 0};
    for (;;) {
        const int n = ::poll(&p, 1, 60000);
        if (n > 0) return {};
        if (n == 0) return fail(errc::io_error, "the server did not answer for a minute");
        if (errno != EINTR) return socket_error("poll");
    }
}

result<int> connect_to(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return socket_error("socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS)
        return ::close(fd), socket_error("connect");
    // A non-blocking connect finishes when the socket becomes writable; SO_ERROR
    // then says whether it succeeded.
    int err = 0;
    socklen_t len = sizeof err;
    if (auto ready = wait_for(fd, POLLOUT); !ready) return ::close(fd), std::move(ready).err();
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) return fd;
    if (err != 0) errno = err;
    auto failed = socket_error("connect");
    ::close(fd);
    return failed;
}

result<void> fetch(int fd, const std::string& old_path, const std::string& out_path) {
    // OLD is opened once: the signature and the patch's COPY commands read the
    // same version of it, even if it is replaced meanwhile.
    auto old_file = input_file::open(old_path);
    if (!old_file) return std::move(old_file).err();
    const std::uint64_t old_size = old_file->size().value_or(0);
    outgoing signature_out(*old_file, make_signature_job(recommended_sig_params(old_size)));
    for (;;) {
        auto sent = signature_out.send_some(fd);
        if (!sent) return std::move(sent).err();
        if (*sent) break;
        if (auto ready = wait_for(fd, POLLOUT); !ready) return ready;
    }
    if (::shutdown(fd, SHUT_WR) != 0) return socket_error("shutdown");  // the signature's end

    // The new file is written to a temporary file, published under OUT only once
    // the whole delta was applied and the new file's checksum matched.
    auto out = output_file::create(out_path, true);
    if (!out) return std::move(out).err();
    file_basis basis(*old_file);
    patch_options options;
    options.delta_name = "the server's delta";
    options.require_checksum = true;  // a delta without trailer could not be verified
    auto patch = make_patch_job(basis, options);
    incoming delta_in(*patch, out->sink());
    for (;;) {
        if (auto ready = wait_for(fd, POLLIN); !ready) return ready;
        auto received = delta_in.receive_some(fd);
        if (!received) return std::move(received).err();
        if (*received) break;
    }
    if (!patch->stats().checksum_verified) return fail(errc::corrupt, "the new file's checksum was not verified");
    if (auto published = out->commit(); !published) return published;
    std::printf("fetched %llu bytes: sent %llu bytes of signature, received %llu bytes of delta\n",
                (unsigned long long)patch->stats().out_bytes, (unsigned long long)signature_out.sent,
                (unsigned long long)delta_in.received);
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "serve" && (argc == 3 || argc == 4)) return serve(argv[2], argc == 4 ? std::atoi(argv[3]) : 1);
    if (mode != "fetch" || argc != 5) {
        std::fprintf(stderr,
                     "usage: sync_service serve FILE [CLIENTS]\n"
                     "       sync_service fetch PORT OLD OUT\n");
        return 1;
    }
    auto fd = connect_to(std::atoi(argv[2]));
    if (!fd) return std::fprintf(stderr, "fetch: %s\n", fd.err().message.c_str()), 1;
    auto fetched = fetch(*fd, argv[3], argv[4]);
    ::close(*fd);
    if (!fetched) return std::fprintf(stderr, "fetch: %s\n", fetched.err().message.c_str()), 1;
    return 0;
}
