// preflight.cpp - command-line checks that rdiff does not make (see preflight.hpp).
#include "preflight.hpp"

#include "cpu/cpu_features.hpp"

#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace rdelta::cli {

std::optional<std::string> misapplied_option(const request& req) {
    // Which commands each option applies to is checked while parsing (command_line.cpp).
    if (req.compression == codec::zstd && req.compression_level > 19 && !req.ultra)
        return "zstd levels above 19 need --ultra (they use much more memory)";
    if (req.checksum && req.no_checksum) return "--checksum and --no-checksum contradict each other";
    if (!req.journal && !req.in_place) return "--no-journal applies to patch --in-place only";
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
    if (!forced || detail::isa_from_name(forced)) return std::nullopt;
    return std::string("RDELTA_FORCE_ISA='") + forced + "' is not a SIMD level (scalar, sse2, avx2, avx512 or neon)";
}

std::string spelling_hint(const std::string& usage_message) {
    static const std::pair<const char*, const char*> hints[] = {
        {"--inplace", "--in-place"},
        {"--in_place", "--in-place"},
        {"--no-cache", "--nocache"},
        {"--checksums", "--checksum"},
        {"--compress", "--gzip or --zstd"},
        {"--sparse", "--no-sparse (sparse is the default)"},
        {"--jobs", "--threads"},
        {"--quiet", "--no-progress"},
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
