// ssh_remote.cpp - destinations, ssh command lines, remote quoting, child processes.
#include "ssh_remote.hpp"

#include "core/posix_io.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace rdelta::cli {

std::variant<destination, std::string> parse_destination(const std::string& text) {
    destination d;
    std::size_t colon = std::string::npos;
    if (const auto open = text.find('['); open != std::string::npos && text.find(':') > open) {
        // [USER@][ADDR]:PATH: an IPv6 address holds colons of its own.
        const auto close = text.find(']', open);
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
            return "'" + text + "' is not [USER@]HOST:PATH (a bracketed host must be followed by ':')";
        d.host = text.substr(0, open) + text.substr(open + 1, close - open - 1);
        colon = close + 1;
    } else {
        colon = text.find(':');
        if (colon == std::string::npos) return "'" + text + "' is not [USER@]HOST:PATH (no ':')";
        d.host = text.substr(0, colon);
    }
    d.path = text.substr(colon + 1);
    const auto at = d.host.rfind('@');
    const std::string bare_host = at == std::string::npos ? d.host : d.host.substr(at + 1);
    if (bare_host.empty()) return "'" + text + "' names no host before ':'";
    if (d.path.empty()) return "'" + text + "' names no file after ':'";
    // ssh reads a word starting with '-' as an option, whatever comes after it.
    if (d.host.front() == '-') return "'" + text + "': a host may not start with '-'";
    return d;
}

std::optional<std::vector<std::string>> split_command(const std::string& text) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) words.push_back(word), word.clear(), in_word = false;
            continue;
        }
        in_word = true;
        if (c == '\'') {
            const auto end = text.find('\'', i + 1);
            if (end == std::string::npos) return std::nullopt;
            word.append(text, i + 1, end - i - 1);
            i = end;
        } else if (c == '"') {
            for (++i;; ++i) {
                if (i >= text.size()) return std::nullopt;
                if (text[i] == '"') break;
                // Inside double quotes a backslash escapes only these, as in sh.
                if (text[i] == '\\' && i + 1 < text.size() && std::strchr("\"\\$`", text[i + 1])) ++i;
                word += text[i];
            }
        } else if (c == '\\') {
            if (++i >= text.size()) return std::nullopt;
            word += text[i];
        } else {
            word += c;
        }
    }
    if (in_word) words.push_back(word);
    if (words.empty()) return std::nullopt;
    return words;
}

std::string shell_quote(const std::string& word) {
    std::string quoted = "'";
    for (const char c : word) {
        if (c == '\'')
            quoted.append("'\\''");
        else
            quoted += c;
    }
    quoted += '\'';
    return quoted;
}

std::string remote_command_line(const std::vector<std::string>& words) {
    std::string line;
    for (const auto& w : words) {
        if (!line.empty()) line += ' ';
        line.append(shell_quote(w));  // append(): `"x" + std::string` trips a bogus GCC 12 -Wrestrict
    }
    return line;
}

namespace {

// In the child, between fork and exec: only async-signal-safe calls.
void become(int from, int to) {
    if (from < 0) return;
    if (from == to) {
        ::fcntl(to, F_SETFD, 0);  // dup2 onto itself would leave close-on-exec set
        return;
    }
    ::dup2(from, to);
}

[[noreturn]] void exec_child(char* const* argv, const child_fds& fds, int report_fd) {
    // The parent may ignore SIGPIPE (push does, to see EPIPE); a child starts clean.
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    become(fds.in, 0);
    become(fds.out, 1);
    become(fds.err, 2);
    become(fds.fd3, 3);
    ::execvp(argv[0], argv);
    const int e = errno;
    (void)!::write(report_fd, &e, sizeof e);
    ::_exit(127);
}

}  // namespace

pid_t spawn(const std::vector<std::string>& argv, const child_fds& fds) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    // The exec's errno comes back through a close-on-exec pipe: a successful exec
    // closes it empty.
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return -1;
    posix_io::unique_fd report_in(report[0]), report_out(report[1]);
    const pid_t pid = ::fork();
    if (pid == 0) exec_child(args.data(), fds, report_out.get());
    const int fork_errno = errno;
    report_out.reset();
    if (pid < 0) {
        report_in.reset();
        errno = fork_errno;
        return -1;
    }
    int exec_errno = 0;
    const ssize_t got = posix_io::read_full(report_in.get(), &exec_errno, sizeof exec_errno);
    report_in.reset();
    if (got == static_cast<ssize_t>(sizeof exec_errno)) {
        wait_child(pid);
        errno = exec_errno;
        return -1;
    }
    return pid;
}

child_status wait_child(pid_t pid) {
    int status = 0;
    if (posix_io::retrying([&] { return ::waitpid(pid, &status, 0); }) < 0) return {};
    if (WIFEXITED(status)) return {WEXITSTATUS(status), 0};
    return {-1, WIFSIGNALED(status) ? WTERMSIG(status) : 0};
}

std::string child_status::describe() const {
    if (exit_code >= 0) return "exited with " + std::to_string(exit_code);
    if (signal > 0)
        return std::string("was killed by signal ") + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
    return "ended in an unknown way";
}

}  // namespace rdelta::cli
