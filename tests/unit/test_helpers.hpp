// test_helpers.hpp - small helpers shared by the unit tests.
#pragma once

#include <rdelta/job.hpp>

#include <doctest/doctest.h>

#include <sys/xattr.h>
#include <unistd.h>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rdelta::test {

/// A fresh folder under the temporary folder, removed with all it holds.
struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "rdelta-test-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a temporary folder");
        path = pattern;
    }
    ~temp_dir() { std::filesystem::remove_all(path); }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

/// Whether files in the temporary folder take user extended attributes: the cases
/// that need them are skipped (doctest::skip) where they cannot run, not passed.
inline bool temp_has_user_attributes() {
    static const bool has = [] {
        std::string name = (std::filesystem::temp_directory_path() / "rdelta-xattr-probe-XXXXXX").string();
        const int fd = ::mkstemp(name.data());
        if (fd < 0) return false;
        const bool ok = ::fsetxattr(fd, "user.rdelta.probe", "1", 1, 0) == 0;
        ::close(fd);
        ::unlink(name.c_str());
        return ok;
    }();
    return has;
}

using bytes = std::vector<std::uint8_t>;

inline bytes from_string(std::string_view s) {
    return bytes(s.begin(), s.end());
}

/// Writes `data` to the file at `path`, replacing what it held.
inline void write_file(const std::filesystem::path& path, std::string_view data) {
    std::ofstream(path, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
}
inline void write_file(const std::filesystem::path& path, const bytes& data) {
    write_file(path, std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
}

/// All the bytes of the file at `path` (none if it cannot be read).
inline bytes read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return bytes(std::istreambuf_iterator<char>(in), {});
}

/// Parse hex digits, ignoring spaces and '|'.
inline bytes from_hex(std::string_view hex) {
    bytes out;
    int hi = -1;
    for (char c : hex) {
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0) continue;
        if (hi < 0)
            hi = v;
        else
            out.push_back(static_cast<std::uint8_t>(hi * 16 + v)), hi = -1;
    }
    return out;
}

inline std::string to_hex(const std::uint8_t* p, std::size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += digits[p[i] >> 4], s += digits[p[i] & 15];
    return s;
}
inline std::string to_hex(const bytes& b) {
    return to_hex(b.data(), b.size());
}

/// Deterministic pseudo-random bytes (xorshift), `alphabet` distinct values.
inline bytes random_bytes(std::size_t n, std::uint64_t seed, unsigned alphabet = 256) {
    bytes out(n);
    std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (auto& b : out) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        b = static_cast<std::uint8_t>((x >> 24) % alphabet);
    }
    return out;
}

/// What `j` makes of `in` fed `chunk` bytes per call (what it leaves offered again,
/// with more up to `chunk`) into an output window of `window_size` bytes.
inline bytes run_chunked(job& j, const bytes& in, std::size_t chunk, std::size_t window_size) {
    bytes out;
    std::vector<std::uint8_t> window(window_size);
    std::size_t off = 0;
    for (int guard = 0; guard < 10000000; ++guard) {
        const std::size_t n = std::min(chunk, in.size() - off);
        buffers io{in.data() + off, n, off + n == in.size(), window.data(), window.size()};
        auto st = j.iterate(io);
        REQUIRE(st.ok());
        off += n - io.avail_in;
        out.insert(out.end(), window.data(), io.next_out);
        if (*st == job_status::done) return out;
    }
    FAIL("job did not finish");
    return out;
}

}  // namespace rdelta::test
