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
#include "target_folder.hpp"

#include <string>

namespace rdelta::cli {

namespace {

// rdiff's own three first: under the name rdiff they are the only ones. A word
// matches the first row it abbreviates ("" and "p" are signature and patch).
constexpr command commands[] = {
    {.act = action::signature,
     .name = "signature",
     .usage = "[OPTIONS] signature [BASIS [SIGNATURE]]",
     .what = "write the signature of BASIS",
     .run = signature_command,
     .rdiff_too = true},
    {.act = action::delta,
     .name = "delta",
     .usage = "[OPTIONS] delta SIGNATURE [NEWFILE [DELTA]]",
     .what = "write the delta from SIGNATURE's file to NEWFILE",
     .run = delta_command,
     .rdiff_too = true,
     .min_files = 1},
    {.act = action::patch,
     .name = "patch",
     .usage = "[OPTIONS] patch BASIS [DELTA [NEWFILE]]",
     .what = "apply DELTA to BASIS",
     .run = patch_command,
     .rdiff_too = true,
     .min_files = 1,
     .files_usage = "[OPTIONS] patch BASIS [DELTA [NEW]]"},
    {.act = action::recover,
     .name = "recover",
     .usage = "recover IMAGE",
     .what = "finish or roll back an interrupted in-place patch of IMAGE",
     .run = recover_command,
     .min_files = 1},
    {.act = action::verify,
     .name = "verify",
     .usage = "verify [--history] IMAGE",
     .what = "compare IMAGE with the manifest its last in-place patch left",
     .run = verify_command,
     .min_prefix = 1,
     .min_files = 1,
     .max_files = 1},
    {.act = action::push,
     .name = "push",
     .usage = "[OPTIONS] push IMAGE [USER@]HOST:PATH",
     .what = "send IMAGE's changes over ssh into the copy at PATH",
     .run = push_command,
     .min_prefix = 2,
     .min_files = 2,
     .max_files = 2},
    {.act = action::pull,
     .name = "pull",
     .usage = "[OPTIONS] pull [--at POINT] [USER@]HOST:PATH LOCAL",
     .what = "bring the remote image (or one of its restore points) back onto LOCAL over ssh",
     .run = pull_command,
     .min_prefix = 2,
     .min_files = 2,
     .max_files = 2},
    {.act = action::history,
     .name = "history",
     .usage = "history [--json] IMAGE",
     .what = "list IMAGE's restore points, newest first",
     .run = history_command,
     .min_prefix = 2,
     .min_files = 1,
     .max_files = 1},
    {.act = action::restore,
     .name = "restore",
     .usage = "restore IMAGE POINT OUTPUT",
     .what = "write IMAGE as it was at a restore point (number or date)",
     .run = restore_command,
     .min_prefix = 3,
     .min_files = 3,
     .max_files = 3,
     .files_usage = "restore [--delta-against SIG] IMAGE POINT OUTPUT"},
    {.act = action::prune,
     .name = "prune",
     .usage = "prune RULE... [--dry-run] IMAGE",
     .what = "drop the restore points that no rule (--keep-last, --keep-daily, --keep-weekly, --keep-monthly) keeps",
     .run = prune_command,
     .min_prefix = 2,
     .min_files = 1,
     .max_files = 1,
     .files_usage = "prune [--keep-last N] [--keep-daily D] [--keep-weekly W] [--keep-monthly M] [--dry-run] IMAGE"},
    {.act = action::info,
     .name = "info",
     .usage = "info [--check] [--json] FILE",
     .what = "describe and check a signature or a delta",
     .run = info_command,
     .min_prefix = 1,
     .min_files = 1},
    {.act = action::benchmark,
     .name = "benchmark",
     .usage = "benchmark [--json]",
     .what = "measure the checksum kernels, signature, delta and patch",
     .run = benchmark_command,
     .min_prefix = 2},
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
    const command* c = find_command(req.act);
    if (!c) return report_usage(inv, "You must specify an action: `signature', `delta', or `patch'.");
    if (req.name_in_dir.empty()) return c->run(req, inv);
    request in_folder = req;
    if (int rc = enter_target_folder(in_folder, inv)) return rc;
    return c->run(in_folder, inv);
}

}  // namespace rdelta::cli
