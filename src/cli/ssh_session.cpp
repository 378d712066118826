// ssh_session.cpp - push's and pull's shared ssh chores (ssh_session.hpp).
#include "ssh_session.hpp"

#include <cinttypes>
#include <cstdio>
#include <utility>
#include <variant>

namespace rdelta::cli {

std::optional<ssh_link> parse_ssh_link(const request& req, const invocation& inv, const char* command,
                                       const std::string& remote, int& rc) {
    auto where = parse_destination(remote);
    if (auto* problem = std::get_if<std::string>(&where)) {
        rc = report_usage(inv, std::string(command) + ": " + *problem);
        return std::nullopt;
    }
    auto ssh = split_command(req.ssh_command.empty() ? std::string("ssh") : req.ssh_command);
    if (!ssh) {
        rc = report_usage(inv, "--ssh '" + req.ssh_command + "' is not a command (an unbalanced quote?)");
        return std::nullopt;
    }
    return ssh_link{std::get<destination>(std::move(where)), std::move(*ssh)};
}

std::vector<std::string> ssh_argv(const ssh_link& link, const std::vector<std::string>& words) {
    std::vector<std::string> argv = link.ssh;
    argv.push_back(link.remote.host);
    argv.push_back(remote_command_line(words));
    return argv;
}

int remote_exit_code(const child_status& s) {
    return s.exit_code >= 100 && s.exit_code <= 108 ? s.exit_code : exit_code(errc::io_error);
}

std::string remote_failure(const std::string& ssh_name, const std::string& host, const char* what,
                           const child_status& s) {
    if (s.exit_code == 255 || s.exit_code < 0)
        return ssh_name + " " + s.describe() + " (connection to " + host + " failed or dropped)";
    if (s.exit_code == 126 || s.exit_code == 127)
        return std::string(what) + ": the remote command " + s.describe() + " (is rdelta installed on " + host +
               "? see --remote-rdelta)";
    return std::string(what) + " on " + host + " " + s.describe();
}

void replay_remote(const std::string& host, const std::string& text) {
    std::size_t at = 0;
    while (at < text.size()) {
        auto end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        std::fprintf(stderr, "%s: %.*s\n", host.c_str(), static_cast<int>(end - at), text.data() + at);
        at = end + 1;
    }
}

std::string human_bytes(std::uint64_t bytes) {
    char text[32];
    if (bytes < 1024)
        std::snprintf(text, sizeof text, "%" PRIu64 " B", bytes);
    else if (bytes < (1u << 20))
        std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(bytes) / 1024);
    else if (bytes < (1u << 30))
        std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / 1048576);
    else
        std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / 1073741824);
    return text;
}

}  // namespace rdelta::cli
