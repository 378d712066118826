// pending_rewrite.cpp - the names of an inode rewrite's staging file, and finding
// the one a rewrite cut short left (finish_rewrite.cpp finishes it).
//
// The rewrite (output_file::rewrite_inode) names its complete staging file
// `.NAME.rdelta-rewrite` beside the file, or `.rdelta-rewrite-DEV-INO` in $TMPDIR,
// before it starts overwriting the file, and removes it when done. A staging file
// found under that name is therefore complete, and copying it into the file is
// what the interrupted run was doing: recovery rolls forward.
#include "pending_rewrite.hpp"

#include "fs/path_walk.hpp"
#include "fs/posix_util.hpp"
#include "fs/publish.hpp"
#include "fs/trusted_file.hpp"
#include "update_marker.hpp"

#include <xxhash.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace rdelta {

using io_detail::io_fail;

namespace io_detail {

std::string staging_name_beside(const std::string& base) {
    const std::string name = "." + base + ".rdelta-rewrite";
    if (name.size() <= NAME_MAX) return name;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(base.data(), base.size())));
    return ".rdelta-rewrite-" + std::string(hex);
}

std::string staging_name_elsewhere(const struct stat& st) {
    char id[64];
    std::snprintf(id, sizeof id, ".rdelta-rewrite-%llx-%llu", static_cast<unsigned long long>(st.st_dev),
                  static_cast<unsigned long long>(st.st_ino));
    return id;
}

std::string pending_rewrite_path(const std::string& staging_folder, const std::string& folder, const std::string& base,
                                 const struct stat& st) {
    const std::string prefix = staging_folder == "/" ? "/" : staging_folder + "/";
    return prefix + (staging_folder != folder ? staging_name_elsewhere(st) : staging_name_beside(base));
}

bool take_pending_name(std::string& temp, const std::string& pending) {
    if (::rename(temp.c_str(), pending.c_str()) == 0) {
        temp = pending;
        return true;
    }
    // Recovery will not find it, but the error names it; a name remove_stale_temps()
    // never takes, since it may soon hold the only complete copy of the content.
    for (int attempt = 0; attempt < 100; ++attempt) {
        const std::string kept = pending + "-" + random_letters();
        if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, kept.c_str(), RENAME_NOREPLACE) == 0) {
            temp = kept;
            break;
        }
        if (errno != EEXIST) break;
    }
    return false;
}

std::string find_pending_rewrite(const std::string& target, const struct stat& st) {
    // The name the file carries wins: it was rewritten under another name (a hard
    // link elsewhere, or renamed since).
    if (const auto marker = read_update_marker(target, st); marker && marker->kind == update_kind::rewrite)
        return marker->path;
    const auto [folder, base] = split_path(target);
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string candidates[] = {
        io_detail::pending_rewrite_path(folder, folder, base, st),
        io_detail::pending_rewrite_path(tmpdir && *tmpdir ? tmpdir : "/tmp", folder, base, st),
    };
    // In a shared folder such as /tmp anyone may create a file under that name:
    // only one of the caller's, the file's owner's or root's counts.
    for (const auto& c : candidates) {
        struct stat s {};
        if (::lstat(c.c_str(), &s) == 0 && trusted_owner(s.st_uid, st)) return c;
    }
    return "";
}

}  // namespace io_detail

}  // namespace rdelta
