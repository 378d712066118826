// output_target.hpp - what an output name really refers to, decided before any
// byte is written: a stream written directly, a new file, or an existing regular
// file (replaced by rename, or rewritten in its own inode when a rename would
// lose its links, its owner, or cannot happen in a read-only folder).
#pragma once

#include <rdelta/error.hpp>

#include <sys/stat.h>
#include <string>

namespace rdelta::io_detail {

/// How an output is written and published.
enum class output_kind {
    stream,         ///< standard output, /dev/fd/N, a device, FIFO or tty: written directly
    new_file,       ///< nothing there yet: temporary file, then a rename that cannot replace
    replace,        ///< an existing file replaced by rename, metadata carried over
    rewrite_inode,  ///< an existing file whose inode is rewritten once the output is complete
};

/// An output name resolved: symlinks followed to the file they name.
struct output_target {
    output_kind kind = output_kind::stream;
    std::string path;            ///< the file to write: the symlink's target, or the name itself
    std::string folder;          ///< the folder holding `path` ("." when it has no slash)
    std::string base;            ///< the last component of `path`
    struct stat st {};           ///< the existing file's status (replace, rewrite_inode, stream)
    bool by_descriptor = false;  ///< stream: a name standing for an open descriptor (/dev/fd/N)
    bool carry_metadata = true;  ///< replace: the old file's owner, mode and attributes are kept
};

/// Resolve `name` (not "-"): follow symlinks to their final target (a dangling one
/// names the file to create), treat /dev/fd/N, /proc/PID/fd/N and every existing
/// non-regular file as a stream, and pick how an existing regular file is replaced.
/// Fails, changing nothing, when an existing output may not be replaced: without
/// `force` (file exists), a folder, or a file the caller may not write. In a shared
/// sticky folder (sticky_folder.hpp) another user's symlink is not followed and
/// another user's file or FIFO not written; a file there that is not the caller's
/// is replaced by one of the caller's, its owner and mode not carried over.
result<output_target> resolve_output(const std::string& name, bool force);

}  // namespace rdelta::io_detail
