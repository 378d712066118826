// unfinished_update.cpp - refusing to read a file that is half updated.
//
// After a crash, `patch --in-place` rolls the image back (or finishes it) before
// it patches, but a signature made in between describes the half-patched bytes,
// and a delta made against that signature then patches the rolled-back image into
// garbage (a delta without a checksum trailer cannot notice). The journal or
// staging file beside the file says it is in that state.
#include "unfinished_update.hpp"

#include "fs/posix_util.hpp"
#include "fs/trusted_file.hpp"
#include "journal_naming.hpp"
#include "pending_rewrite.hpp"
#include "update_marker.hpp"

#include <sys/file.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>

namespace rdelta::io_detail {

namespace {

std::string real_path(const std::string& path) {
    std::string real = path;
    if (char* r = ::realpath(path.c_str(), nullptr)) {
        real = r;
        std::free(r);
    }
    return real;
}

// The in-place patch and the rewrite hold an exclusive flock on the file while
// they run.
bool held_by_a_run(int fd) {
    if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
        (void)::flock(fd, LOCK_UN);
        return false;
    }
    return errno == EWOULDBLOCK;
}

}  // namespace

result<void> refuse_unfinished_update(int fd, const std::string& path, const struct stat& st) {
    if (!S_ISREG(st.st_mode)) return {};
    // The note on the file first: it is there under any name the file has.
    const auto marker = read_update_marker(fd, st);
    if (marker && marker->kind == update_kind::unjournaled) return refuse_torn_image(fd, path, st);
    // A journal counts while a run holds the file or once its header names this
    // file; until then the file was not touched (a journal left empty by a full
    // disk says nothing).
    std::string journal = journal_path(path).second;
    struct stat js {};
    bool journaled = ::lstat(journal.c_str(), &js) == 0 && trusted_owner(js.st_uid, st) &&
                     (held_by_a_run(fd) || journal_of_file(journal, fd, st));
    if (!journaled && marker && marker->kind == update_kind::journal &&
        (held_by_a_run(fd) || journal_of_file(marker->path, fd, st)))
        journal = marker->path, journaled = true;
    std::string staging;
    if (marker && marker->kind == update_kind::rewrite && !journaled) staging = marker->path;
    if (!journaled && staging.empty()) staging = find_pending_rewrite(real_path(path), st);
    if (!journaled && staging.empty()) return {};
    if (held_by_a_run(fd))
        return fail(errc::io_error, path +
                                        ": another rdelta is updating it in place (it holds the file's lock): "
                                        "its content is part old, part new until that run ends");
    if (journaled)
        return fail(errc::io_error,
                    path + ": an in-place patch of it was interrupted (journal " + journal +
                        "): it may be part old, part new until it is recovered",
                    remedy::recover, path);
    return fail(errc::io_error,
                path + ": a rewrite of it was interrupted (its new content is in " + staging +
                    "): it may be part old, part new until it is recovered",
                remedy::recover, path);
}

result<void> refuse_torn_image(int fd, const std::string& path, const struct stat& st) {
    const auto marker = read_update_marker(fd, st);
    if (!marker || marker->kind != update_kind::unjournaled) return {};
    if (held_by_a_run(fd))
        return fail(errc::io_error, path +
                                        ": another rdelta is patching it in place without a journal (it holds the "
                                        "file's lock): its content is part old, part new until that run ends");
    return fail(errc::io_error, path +
                                    ": an in-place patch of it without a journal was interrupted: it is "
                                    "part old, part new and nothing can restore it; put back a copy as a new file "
                                    "(cp --remove-destination COPY " +
                                    path + ")");
}

}  // namespace rdelta::io_detail
