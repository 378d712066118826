// preflight.cpp - command-line checks that rdiff does not make (see preflight.hpp).
#include "preflight.hpp"

#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <utility>
#include <vector>

namespace rdelta::cli {

namespace {

const char* action_name(action a) {
    switch (a) {
    case action::signature: return "signature";
    case action::delta: return "delta";
    case action::patch: return "patch";
    case action::benchmark: return "benchmark";
    case action::recover: return "recover";
    case action::info: return "info";
    case action::push: return "push";
    case action::none: break;
    }
    return "";
}

// (given, option, the command it belongs to)
std::vector<std::pair<bool, const char*>> options_foreign_to(const request& req) {
    switch (req.act) {
    case action::signature:
        return {{req.checksum, "--checksum"},   {req.verify, "--verify"},          {req.in_place, "--in-place"},
                {req.in_place_safe, "--in-place-safe"}, {req.max_output != 0, "--max-output"},
                {!req.sparse, "--no-sparse"}, {req.no_checksum, "--no-checksum"},
                {!req.journal, "--no-journal"}, {req.kernel_copy != copy_mode::automatic, "--kernel-copy"},
                {!req.new_signature.empty(), "--new-signature"}};
    case action::delta:
        return {{req.verify, "--verify"}, {req.in_place, "--in-place"}, {req.max_output != 0, "--max-output"},
                {!req.sparse, "--no-sparse"}, {!req.journal, "--no-journal"},
                {req.kernel_copy != copy_mode::automatic, "--kernel-copy"}};
    case action::patch:
        return {{req.checksum, "--checksum"}, {req.in_place_safe, "--in-place-safe"},
                {req.no_checksum, "--no-checksum"}, {!req.journal && !req.in_place, "--no-journal without --in-place"},
                {!req.new_signature.empty(), "--new-signature"}};
    case action::push:  // the delta always carries the trailer and suits an in-place patch
        return {{req.checksum, "--checksum"}, {req.no_checksum, "--no-checksum"}, {req.verify, "--verify"},
                {req.in_place, "--in-place"}, {req.max_output != 0, "--max-output"}, {!req.sparse, "--no-sparse"},
                {!req.journal, "--no-journal"}, {req.kernel_copy != copy_mode::automatic, "--kernel-copy"},
                {!req.new_signature.empty(), "--new-signature"}};
    case action::benchmark:
    case action::info:
    case action::recover: return {{req.checksum, "--checksum"}, {req.in_place_safe, "--in-place-safe"},
                                   {req.no_checksum, "--no-checksum"}, {!req.journal, "--no-journal"},
                                   {req.kernel_copy != copy_mode::automatic, "--kernel-copy"},
                                   {!req.new_signature.empty(), "--new-signature"}};
    case action::none: break;
    }
    return {};
}

}  // namespace

std::optional<std::string> misapplied_option(const request& req) {
    if (req.max_strong_work >= 0 && req.act != action::delta)
        return std::string("--max-strong-work does not apply to ") + action_name(req.act);
    if (req.check && req.act != action::info) return std::string("--check does not apply to ") + action_name(req.act);
    if (req.compression == codec::zstd && req.compression_level > 19 && !req.ultra)
        return "zstd levels above 19 need --ultra (they use much more memory)";
    if (req.checksum && req.no_checksum) return "--checksum and --no-checksum contradict each other";
    if (req.act != action::push)
        for (const auto& [given, name] : {std::pair{!req.ssh_command.empty(), "--ssh"},
                                          std::pair{!req.remote_rdelta.empty(), "--remote-rdelta"},
                                          std::pair{!req.signature_store.empty(), "--signature-store"}})
            if (given) return std::string(name) + " does not apply to " + action_name(req.act);
    for (const auto& [given, name] : options_foreign_to(req))
        if (given) return std::string(name) + " does not apply to " + action_name(req.act);
    return std::nullopt;
}

std::optional<std::string> binary_to_terminal(const request& req) {
    if (req.force || (req.act != action::signature && req.act != action::delta)) return std::nullopt;
    const std::size_t out_index = req.act == action::signature ? 1 : 2;
    const bool to_stdout = req.files.size() <= out_index || req.files[out_index] == "-";
    if (!to_stdout || !isatty(1)) return std::nullopt;
    return std::string("standard output is a terminal: the ") + action_name(req.act) +
           " is binary; name an output file or redirect it (-f writes it anyway)";
}

std::optional<std::string> bad_force_isa() {
    const char* forced = std::getenv("RDELTA_FORCE_ISA");
    if (!forced) return std::nullopt;
    for (const char* level : {"scalar", "sse2", "avx2", "avx512", "neon"})
        if (std::strcmp(forced, level) == 0) return std::nullopt;
    return std::string("RDELTA_FORCE_ISA='") + forced + "' is not a SIMD level (scalar, sse2, avx2, avx512 or neon)";
}

std::string spelling_hint(const std::string& usage_message) {
    static const std::pair<const char*, const char*> hints[] = {
        {"--inplace", "--in-place"},     {"--in_place", "--in-place"},   {"--no-cache", "--nocache"},
        {"--checksums", "--checksum"},   {"--compress", "--gzip or --zstd"}, {"--sparse", "--no-sparse (sparse is the default)"},
        {"--jobs", "--threads"},         {"--quiet", "--no-progress"},
    };
    const auto colon = usage_message.rfind(": ");
    if (colon == std::string::npos) return "";
    std::string word = usage_message.substr(colon + 2);
    if (const auto eq = word.find('='); eq != std::string::npos) word.resize(eq);
    for (const auto& [spelled, meant] : hints)
        if (word == spelled) return std::string(" (did you mean ") + meant + "?)";
    return "";
}

}  // namespace rdelta::cli
