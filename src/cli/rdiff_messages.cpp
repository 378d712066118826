// rdiff_messages.cpp - rdiff's stderr lines (rdiff_messages.hpp). The texts are
// librsync 2.3.2's (rs_file_open, rs_infilebuf_fill, rs_file_copy_cb, rs_sig_args, rdiff.c),
// checked against Debian's /usr/bin/rdiff by tests/cli/safety_process_test.py.
#include "rdiff_messages.hpp"

#include "exit_codes.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rdelta::cli::rdiff_messages {

namespace {

constexpr int io_status = exit_code(errc::io_error);

int open_error(const std::string& path, const char* mode, const char* reason) {
    std::fprintf(stderr, "librsync: ERROR: (rs_file_open) Error opening \"%s\" for %s: %s\n", path.c_str(), mode,
                 reason);
    return io_status;
}

// The errno opening `path` for reading gives now; 0 when it opens (never blocking
// on a FIFO), EISDIR for a folder.
int read_errno(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno;
    struct stat st {};
    const int err = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) ? EISDIR : 0;
    ::close(fd);
    return err;
}

// Why opening `path` for writing fails: the path's own error, or its folder's.
int write_errno(const std::string& path) {
    if (path.empty()) return ENOENT;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) return EISDIR;
        return ::access(path.c_str(), W_OK) == 0 ? 0 : errno;
    }
    if (errno != ENOENT) return errno;
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    return ::access(dir.c_str(), W_OK | X_OK) == 0 ? 0 : errno;
}

}  // namespace

int input_failed(const std::string& path, bool basis, const error& e) {
    const int err = read_errno(path);
    if (err == EISDIR) {
        if (basis) {
            std::fputs(
                "librsync: ERROR: (rs_file_copy_cb) read error: Is a directory\n"
                "librsync: ERROR: (rs_job_complete) patch job failed: IO error\n",
                stderr);
        } else {
            std::fputs("librsync: ERROR: (rs_infilebuf_fill) error filling buf from file: Is a directory\n", stderr);
        }
        std::fputs("rdiff: Failed, IO error.\n", stderr);
        return io_status;
    }
    return err ? open_error(path, "read", std::strerror(err)) : failed(e);
}

int output_refused(const std::string& path, bool force, const error& e) {
    const int status = check_output(path, force);
    return status ? status : failed(e);
}

int output_failed(const std::string& path, const error& e) {
    const int err = write_errno(path);
    return err ? open_error(path, "write", std::strerror(err)) : failed(e);
}

bool is_folder(const std::string& path) {
    struct stat st {};
    return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

int check_input(const std::string& path) {
    if (path == "-") return 0;
    const int err = read_errno(path);
    return err && err != EISDIR ? open_error(path, "read", std::strerror(err)) : 0;
}

int check_output(const std::string& path, bool force) {
    if (path == "-") return 0;
    // rdiff's test for "exists": the path opens for reading (a folder does).
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
    if (!force && fd >= 0) {
        std::fprintf(stderr, "librsync: ERROR: (rs_file_open) File exists \"%s\", aborting!\n", path.c_str());
        return io_status;
    }
    const int err = write_errno(path);
    return err ? open_error(path, "write", std::strerror(err)) : 0;
}

int sig_args_refused(const error& e) {
    std::fprintf(stderr, "librsync: ERROR: (rs_sig_args) %s\nrdiff: Failed, %s.\n", e.message.c_str(),
                 errc_text(e.code));
    return exit_code(e.code);
}

void sig_args_warning(const std::string& text) {
    std::fprintf(stderr, "librsync: Warning: (rs_sig_args) %s\n", text.c_str());
}

int failed(const error& e) {
    std::fprintf(stderr, "rdiff: %s\nrdiff: Failed, %s.\n", e.message.c_str(), errc_text(e.code));
    return exit_code(e.code);
}

}  // namespace rdelta::cli::rdiff_messages
