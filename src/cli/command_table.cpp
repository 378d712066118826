// command_table.cpp - the rows of rdelta's commands, and the dispatch through them.
#include "command_table.hpp"

#include "benchmark_command.hpp"
#include "delta_command.hpp"
#include "history_command.hpp"
#include "in_place_command.hpp"
#include "info_command.hpp"
#include "patch_command.hpp"
#include "preflight.hpp"
#include "pull_command.hpp"
#include "push_command.hpp"
#include "signature_command.hpp"

#include <string>

namespace rdelta::cli {

namespace {

constexpr std::size_t any = static_cast<std::size_t>(-1);

// rdiff's own three first: under the name rdiff they are the only ones.
constexpr command commands[] = {
    {action::signature, "signature", 0, true, "[OPTIONS] signature [BASIS [SIGNATURE]]", "write the signature of BASIS",
     0, any, nullptr, signature_command},
    {action::delta, "delta", 0, true, "[OPTIONS] delta SIGNATURE [NEWFILE [DELTA]]",
     "write the delta from SIGNATURE's file to NEWFILE", 1, any, nullptr, delta_command},
    {action::patch, "patch", 0, true, "[OPTIONS] patch BASIS [DELTA [NEWFILE]]", "apply DELTA to BASIS", 1, any,
     "[OPTIONS] patch BASIS [DELTA [NEW]]", patch_command},
    {action::recover, "recover", 0, false, "recover IMAGE",
     "finish or roll back an interrupted in-place patch of IMAGE", 1, any, nullptr, recover_command},
    {action::verify, "verify", 1, false, "verify [--history] IMAGE",
     "compare IMAGE with the manifest its last in-place patch left", 1, 1, nullptr, verify_command},
    {action::push, "push", 2, false, "[OPTIONS] push IMAGE [USER@]HOST:PATH",
     "send IMAGE's changes over ssh into the copy at PATH", 2, 2, nullptr, push_command},
    {action::pull, "pull", 2, false, "[OPTIONS] pull [--at POINT] [USER@]HOST:PATH LOCAL",
     "bring the remote image (or one of its restore points) back onto LOCAL over ssh", 2, 2, nullptr, pull_command},
    {action::history, "history", 2, false, "history [--json] IMAGE", "list IMAGE's restore points, newest first", 1, 1,
     nullptr, history_command},
    {action::restore, "restore", 3, false, "restore IMAGE POINT OUTPUT",
     "write IMAGE as it was at a restore point (number or date)", 3, 3,
     "restore [--delta-against SIG] IMAGE POINT OUTPUT", restore_command},
    {action::prune, "prune", 2, false, "prune RULE... [--dry-run] IMAGE",
     "drop the restore points that no rule (--keep-last, --keep-daily, --keep-weekly, --keep-monthly) keeps", 1, 1,
     "prune [--keep-last N] [--keep-daily D] [--keep-weekly W] [--keep-monthly M] [--dry-run] IMAGE", prune_command},
    {action::info, "info", 1, false, "info [--check] [--json] FILE", "describe and check a signature or a delta", 1,
     any, nullptr, info_command},
    {action::benchmark, "benchmark", 2, false, "benchmark [--json]",
     "measure the checksum kernels, signature, delta and patch", 0, any, nullptr, benchmark_command},
};

}  // namespace

std::span<const command> command_table() {
    return commands;
}

const command* find_command(action a) {
    for (const command& c : commands)
        if (c.act == a) return &c;
    return nullptr;
}

action match_action(std::string_view word, bool as_rdiff) {
    for (const command& c : commands)
        if ((c.rdiff_too || !as_rdiff) && word.size() >= c.min_prefix && std::string_view(c.name).starts_with(word))
            return c.act;
    return action::none;
}

const std::string& command_names() {
    static const std::string names = [] {
        std::string text;
        for (const command& c : commands) text.append(c.name).append(", ");
        return text + "help";
    }();
    return names;
}

const char* action_name(action a) {
    const command* c = find_command(a);
    return c ? c->name : "";
}

int run_command(const request& req, const invocation& inv) {
    if (!inv.as_rdiff && req.act != action::none) {
        if (auto problem = misapplied_option(req)) return report_usage(inv, *problem);
        if (auto problem = binary_to_terminal(req)) return report_usage(inv, *problem);
    }
    if (const command* c = find_command(req.act)) return c->run(req, inv);
    return report_usage(inv, "You must specify an action: `signature', `delta', or `patch'.");
}

}  // namespace rdelta::cli
