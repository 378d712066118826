// ssh_session.hpp - what push and pull share around their ssh sessions: the
// remote end and ssh command taken from the command line, ssh's argv, the remote
// side's stderr and exit status shown as their own, and byte counts for people.
#pragma once

#include "invocation.hpp"
#include "ssh_remote.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdelta::cli {

/// The remote end of push or pull and the ssh command that reaches it.
struct ssh_link {
    destination remote;
    std::vector<std::string> ssh;  ///< --ssh's words (default: ssh)
};

/// `remote` ([USER@]HOST:PATH) and --ssh parsed for `command` ("push", "pull");
/// nullopt after a usage error was reported, its exit status in `rc`.
std::optional<ssh_link> parse_ssh_link(const request& req, const invocation& inv, const char* command,
                                       const std::string& remote, int& rc);

/// ssh's argv: the --ssh words, the host, and `words` as one remote command line.
std::vector<std::string> ssh_argv(const ssh_link& link, const std::vector<std::string>& words);

/// A remote or child exit status as push's or pull's own: rdelta's codes pass
/// through, anything else (ssh's 255, a shell's 127, a signal) is an I/O failure.
int remote_exit_code(const child_status& s);

/// Why an ssh session running `what` failed: ssh itself (255, a signal; named
/// `ssh_name`), the remote shell not finding rdelta (126, 127), or the remote
/// rdelta's own status.
std::string remote_failure(const std::string& ssh_name, const std::string& host, const char* what,
                           const child_status& s);

/// What the remote side wrote on stderr, each line marked with the host it came from.
void replay_remote(const std::string& host, const std::string& text);

/// "512 B", "1.5 KiB", "3.2 MiB", "1.25 GiB".
std::string human_bytes(std::uint64_t bytes);

}  // namespace rdelta::cli
