// basis_root.cpp - the record of a signature's file root beside the signature.
//
// One line: "rdelta-root 1 SIGNATURE-XXH3-128 ROOT\n", both in hex. The record is only
// a hint for naming a delta's basis: a wrong one makes an in-place patch refuse a
// good delta (status 106), never accept a bad one, so it is read with ordinary care
// (no symlink, a regular file of the caller's or root's, short) and ignored when odd.
#include "core/posix_io.hpp"
#include "format/checksum_trailer.hpp"

#include <rdelta/basis_root.hpp>
#include <rdelta/output_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <cerrno>
#include <cstring>
#include <vector>

namespace rdelta {

namespace {

constexpr std::string_view record_word = "rdelta-root 1 ";

struct fd_closer {
    int fd;
    ~fd_closer() {
        if (fd >= 0) ::close(fd);
    }
};

// The XXH3-128 of a whole file's bytes, nullopt when it cannot be read.
std::optional<chunk_root> file_digest(const std::string& path) {
    fd_closer f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    struct stat st {};
    if (f.fd < 0 || ::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    XXH3_state_t* state = XXH3_createState();
    if (!state) return std::nullopt;
    XXH3_128bits_reset(state);
    std::vector<std::uint8_t> buf(std::size_t{1} << 20);
    bool ok = true;
    for (;;) {
        const ssize_t n = posix_io::read_some(f.fd, buf.data(), buf.size());
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        XXH3_128bits_update(state, buf.data(), static_cast<std::size_t>(n));
    }
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(state));
    XXH3_freeState(state);
    if (!ok) return std::nullopt;
    chunk_root out;
    std::memcpy(out.data(), c.digest, out.size());
    return out;
}

}  // namespace

std::string root_to_hex(const chunk_root& root) {
    return detail::hash_hex(root);
}

std::optional<chunk_root> root_from_hex(std::string_view hex) {
    if (hex.size() != 32) return std::nullopt;
    chunk_root out{};
    for (std::size_t i = 0; i < 32; ++i) {
        const char c = hex[i];
        const int v = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
        if (v < 0) return std::nullopt;
        out[i / 2] = static_cast<std::uint8_t>(out[i / 2] << 4 | v);
    }
    return out;
}

std::string basis_root_path(const std::string& signature_path) {
    const auto slash = signature_path.rfind('/');
    const std::string folder = slash == std::string::npos ? "" : signature_path.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? signature_path : signature_path.substr(slash + 1);
    return folder + "." + base + ".rdelta-root";
}

result<void> write_basis_root(const std::string& signature_path, const chunk_root& root, bool durable) {
    const auto digest = file_digest(signature_path);
    if (!digest) return fail(errc::io_error, signature_path + ": cannot read the signature back to record its root");
    const std::string line = std::string(record_word) + root_to_hex(*digest) + " " + root_to_hex(root) + "\n";
    auto out = output_file::create(basis_root_path(signature_path), true);
    if (!out) return std::move(out).err();
    out->set_durable(durable);
    if (auto w = out->write({reinterpret_cast<const std::uint8_t*>(line.data()), line.size()}); !w) return w;
    return out->commit();
}

std::optional<chunk_root> read_basis_root(const std::string& signature_path) {
    const std::string path = basis_root_path(signature_path);
    fd_closer f{::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)};
    struct stat st {};
    if (f.fd < 0 || ::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    if (st.st_uid != ::geteuid() && st.st_uid != 0) return std::nullopt;
    char text[128];
    const ssize_t n = ::read(f.fd, text, sizeof text);
    const std::size_t want = record_word.size() + 32 + 1 + 32 + 1;
    if (n != static_cast<ssize_t>(want) || std::string_view(text, record_word.size()) != record_word ||
        text[want - 1] != '\n' || text[record_word.size() + 32] != ' ')
        return std::nullopt;
    const auto recorded_digest = root_from_hex({text + record_word.size(), 32});
    const auto root = root_from_hex({text + record_word.size() + 33, 32});
    if (!recorded_digest || !root) return std::nullopt;
    const auto digest = file_digest(signature_path);
    if (!digest || *digest != *recorded_digest) return std::nullopt;
    return root;
}

std::optional<chunk_root> delta_output_root(std::span<const std::uint8_t> tail) {
    for (const std::size_t size : {detail::basis_trailer_size, detail::chunk_trailer_size}) {
        if (tail.size() < size) continue;
        const std::uint8_t* p = tail.data() + tail.size() - size;
        if (detail::trailer_size_at(p, size) == size && detail::is_chunk_trailer(p, size))
            return detail::trailer_root(p);
    }
    return std::nullopt;
}

}  // namespace rdelta
