// ssh_remote.hpp - what `rdelta push` needs to run rdelta on another machine: the
// destination [USER@]HOST:PATH, the ssh command line, the remote command quoted
// for the remote shell, and child processes started with fork/exec (never through
// a local shell, so no local path is ever parsed by one).
#pragma once

#include <sys/types.h>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace rdelta::cli {

/// `[USER@]HOST:PATH` split at the first ':' (a host in brackets, `[::1]:PATH`,
/// may hold colons).
struct destination {
    std::string host;  ///< as ssh takes it, USER@ included, brackets removed
    std::string path;  ///< the remote file, as the remote shell's cwd sees it
};

/// The destination, or why it is not one (one line, without the program name).
/// A host starting with '-' is refused: ssh would take it as an option.
std::variant<destination, std::string> parse_destination(const std::string& text);

/// The words of an --ssh command ("ssh -p 2222 -i 'my key'"): split at blanks,
/// with single quotes, double quotes and backslashes as a POSIX shell reads them
/// (no expansions). nullopt for an unbalanced quote or no word at all.
std::optional<std::vector<std::string>> split_command(const std::string& text);

/// One word quoted for a POSIX shell: 'word', with ' written as '\''. ssh joins
/// its command words with blanks and the remote user's shell splits them again,
/// so every word is quoted, whatever it holds.
std::string shell_quote(const std::string& word);

/// The words joined as one command line for the remote shell.
std::string remote_command_line(const std::vector<std::string>& words);

/// A child process's file descriptors: -1 inherits ours. `fd3` (above 2), when
/// set, is passed on as descriptor 3 (a file the child names /dev/fd/3).
struct child_fds {
    int in = -1, out = -1, err = -1, fd3 = -1;
};

/// Start argv[0] (looked up in PATH when it has no '/') with `fds` as its standard
/// streams and default signal dispositions. Returns its pid, or -1 with errno set.
pid_t spawn(const std::vector<std::string>& argv, const child_fds& fds);

/// How a child ended, for messages and exit codes.
struct child_status {
    int exit_code = -1;  ///< its exit status, or -1 when killed by a signal
    int signal = 0;      ///< the signal that killed it, or 0
    bool ok() const noexcept { return exit_code == 0; }
    std::string describe() const;  ///< "exited with 255", "was killed by signal 9"
};

/// Wait for the child (retrying on EINTR).
child_status wait_child(pid_t pid);

}  // namespace rdelta::cli
