// journal_naming.cpp - where an in-place patch's undo journal lives and whether a
// journal file counts for an image (journal_naming.hpp).
#include "journal_naming.hpp"

#include "fs/path_walk.hpp"
#include "fs/posix_util.hpp"
#include "fs/trusted_file.hpp"
#include "update_marker.hpp"

#include "core/posix_io.hpp"
#include "journal_format.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <optional>

namespace rdelta::io_detail {

std::string journal_name(const std::string& base) {
    return beside_name(base, ".rdelta-journal");
}

std::pair<std::string, std::string> journal_path(const std::string& image_path) {
    // Beside the file itself: for a symlink, beside its target.
    std::string target = image_path;
    if (char* real = ::realpath(image_path.c_str(), nullptr)) {
        target = real;
        std::free(real);
    }
    const auto slash = target.rfind('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : target.substr(0, slash);
    const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
    return {folder, joined(folder, journal_name(base))};
}

bool journal_names_file(int journal_fd, int image_fd, const struct stat& st) {
    bool blank = true, valid = false;
    std::optional<detail::journal_header> named;
    for (const std::uint64_t at : detail::journal_slot_at) {
        std::uint8_t bytes[detail::journal_header_size] = {};
        const ssize_t n = posix_io::pread_some(journal_fd, bytes, sizeof bytes, at);
        if (n > 0 && std::any_of(bytes, bytes + n, [](std::uint8_t b) { return b != 0; })) blank = false;
        detail::journal_header h;
        if (n != static_cast<ssize_t>(sizeof bytes) || !detail::decode_header(bytes, h)) continue;
        valid = true;
        if (h.ino != 0 && h.dev == static_cast<std::uint64_t>(st.st_dev) &&
            h.ino == static_cast<std::uint64_t>(st.st_ino))
            named = h;
    }
    if (named) return claim_of_journal(image_fd, st, named->nonce) != journal_claim::stale;
    // Written, yet no slot valid: the header was damaged and recovery refuses it,
    // since the file may be part old, part new.
    return !blank && !valid;
}

bool journal_of_file(const std::string& journal, int image_fd, const struct stat& st) {
    const auto [folder, base] = split_path(journal);
    const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return false;
    const int fd = open_beside(dir, base, O_RDONLY);
    ::close(dir);
    if (fd < 0) return false;
    struct stat js {};
    const bool ours =
        ::fstat(fd, &js) == 0 && untrusted_because(js, st).empty() && journal_names_file(fd, image_fd, st);
    ::close(fd);
    return ours;
}

}  // namespace rdelta::io_detail
