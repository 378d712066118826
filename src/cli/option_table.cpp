// option_table.cpp - the options: the single source of truth for parsing and --help.
#include "option_table.hpp"

#include <rdelta/compression.hpp>

#include <initializer_list>
#include <string_view>

namespace rdelta::cli {
namespace {

namespace po = boost::program_options;

po::typed_value<std::string>* arg(const char* name) {
    return po::value<std::string>()->value_name(name);
}

/// -z[LEVEL], --gzip[=LEVEL]: the level is optional (and only ever attached, see
/// apply_compression()).
po::typed_value<std::string>* level_arg() {
    return arg("LEVEL")->implicit_value("");
}

std::string level_help(codec c) {
    return std::string("signature, delta, push, pull, restore --delta-against: compress the output with ") +
           codec_name(c) + ", LEVEL 1-" + std::to_string(max_level(c)) + " (default " +
           std::to_string(default_level(c)) + ")";
}

// The commands each option applies to, under the name rdelta. Under the name rdiff
// every rdiff option is accepted by every command, as rdiff does; rdelta keeps that
// for signature, delta and patch, so a script written for rdiff runs unchanged.
constexpr command_set sig = command_bit(action::signature), dlt = command_bit(action::delta),
                      pat = command_bit(action::patch), bench = command_bit(action::benchmark),
                      inf = command_bit(action::info), rec = command_bit(action::recover),
                      ver = command_bit(action::verify), psh = command_bit(action::push),
                      his = command_bit(action::history), rst = command_bit(action::restore),
                      prn = command_bit(action::prune), pul = command_bit(action::pull);
// push runs signature, delta and patch: rdiff's options reach those it runs.
constexpr command_set rdiff_commands = sig | dlt | pat | psh;
constexpr command_set history_commands = his | rst | prn;
constexpr command_set every_command = rdiff_commands | bench | inf | rec | ver | psh | history_commands | pul;

/// Adds rows to one section: name, the commands it applies to, value, help.
class rows {
public:
    rows(po::options_description& section, std::map<std::string, command_set, std::less<>>& commands)
        : add_(section.add_options()), commands_(commands) {}
    rows& operator()(const char* name, command_set applies_to, const char* help) {
        add_(name, help);
        return record(name, applies_to);
    }
    rows& operator()(const char* name, command_set applies_to, const po::value_semantic* value, const char* help) {
        add_(name, value, help);
        return record(name, applies_to);
    }

private:
    rows& record(const char* name, command_set applies_to) {
        const std::string_view n(name);
        // ",h" (no long name) is known by "-h"; appended: `"-" + std::string` trips GCC 12's -Wrestrict.
        std::string key = n.starts_with(',') ? "-" : "";
        key.append(n.starts_with(',') ? n.substr(1) : n.substr(0, n.find(',')));
        commands_[key] = applies_to;
        return *this;
    }
    po::options_description_easy_init add_;
    std::map<std::string, command_set, std::less<>>& commands_;
};

}  // namespace

option_table::option_table() {
    const std::string gzip_help = level_help(codec::gzip), bzip2_help = level_help(codec::bzip2),
                      zstd_help = level_help(codec::zstd);
    rows(general, commands)("verbose,v", rdiff_commands, "Trace internal processing")(
        "version,V", every_command, "Show program version")("help,?", every_command, "Show this help message")(
        "statistics,s", rdiff_commands, "Show performance statistics")("force,f", rdiff_commands | rst,
                                                                       "Force overwriting existing files");
    rows(signature, commands)("hash,H", rdiff_commands, arg("ALG"), "Hash algorithm: blake2 (default), md4")(
        "rollsum,R", rdiff_commands, arg("ALG"), "Rollsum algorithm: rabinkarp (default), rollsum");
    rows(delta, commands)("block-size,b", rdiff_commands, arg("BYTES"),
                          "Signature block size, 0 (default) for recommended")(
        "sum-size,S", rdiff_commands, arg("BYTES"), "Signature strength, 0 (default) for max, -1 for min");
    rows(io, commands)("input-size,I", rdiff_commands, arg("BYTES"), "Input buffer size")(
        "output-size,O", rdiff_commands, arg("BYTES"), "Output buffer size");
    rows(extensions, commands)("threads,j", sig | dlt | psh, arg("N"),
                               "signature, delta: worker threads, 0 (default) for all cores")(
        "max-output", pat, arg("BYTES"), "patch: fail (status 102) rather than write more than this")(
        "max-strong-work", dlt, arg("FACTOR"),
        "delta: fail (status 102) once strong hashing exceeds FACTOR (default 256, 0 = no limit) plus "
        "twice the basis size / 2^32, times the input size, plus a constant")(
        "progress", rdiff_commands, "Show a progress line on stderr (default: on a terminal)")(
        "no-progress", rdiff_commands, "Do not show progress")("nocache", rdiff_commands,
                                                               "Do not keep file data in the page cache")(
        "no-sparse", pat | rst, "patch, restore: write zero runs as data, not as holes")(
        "kernel-copy", pat, arg("WHEN"),
        "patch: copy long COPYs file to file with copy_file_range: auto (default: where the filesystem "
        "shares extents, e.g. XFS, btrfs, NFS), always, never")(
        "fsync", rdiff_commands | rst,
        "Flush each file output to disk before publishing it (durable against power loss)")(
        "no-fsync", rdiff_commands, "Publish outputs without flushing them to disk (the default)")(
        "checksum", dlt, "delta: append the new file's length and XXH3-128 after END (the default)")(
        "verify", pat, "patch: require the checksum trailer, check it and report")(
        "in-place", pat, "patch BASIS [DELTA]: update BASIS itself, writing only what changes")(
        "in-place-safe", dlt | psh, "delta: only copies that patch --in-place can apply (no data moved back)")(
        "no-checksum", dlt, "delta: no checksum trailer: rdiff's exact bytes (patch cannot detect a wrong basis)")(
        "no-journal", pat, "patch --in-place: no undo journal (faster, but an interruption damages BASIS)")(
        "new-signature", dlt, arg("FILE"),
        "delta: also write the new file's signature to FILE, from the same read, with SIGNATURE's parameters")(
        "basis-root", dlt, arg("ROOT"),
        "delta: name the basis's chunk root (32 hex digits) in the trailer, so patch --in-place refuses the delta "
        "for another version of the image (default: the root kept beside SIGNATURE, if any)")(
        "keep-history", pat | psh,
        "patch --in-place, push: keep the image as it was before as a restore point (see history, restore, prune)")(
        "history-dir", pat | rec | ver | history_commands, arg("DIR"),
        "where the image's restore points are kept (default: .IMAGE.rdelta-history beside it)")(
        "keep-last", prn, arg("N"), "prune: keep the N newest points")(
        "keep-daily", prn, arg("N"), "prune: keep the newest point of each of the last N days with points")(
        "keep-weekly", prn, arg("N"), "prune: keep the newest point of each of the last N weeks with points")(
        "keep-monthly", prn, arg("N"), "prune: keep the newest point of each of the last N months with points")(
        "dry-run", prn, "prune: list the points that would go, change nothing")(
        "history", ver, "verify: also check every restore point against its checksums")(
        "delta-against", rst, arg("SIG"),
        "restore: write the delta from SIG's file to the point instead of the point itself")(
        "at", pul, arg("POINT"), "pull: bring back that restore point (default: the image as it is)")(
        "ssh,e", psh | pul, arg("CMD"),
        "push, pull: run the remote side through CMD (default: ssh), e.g. 'ssh -p 2222 -i key'")(
        "remote-rdelta", psh | pul, arg("PATH"), "push, pull: the rdelta program on the remote host (default: rdelta)")(
        "signature-store", psh, arg("FILE"),
        "push: keep the signature of the remote image in FILE (default: under ~/.cache/rdelta/push/)")(
        "name-in-dir", sig | pat | rec, arg("NAME"),
        "signature, patch, recover: when the file worked on (BASIS; patch's NEWFILE, or BASIS with --in-place; "
        "IMAGE) is a directory or ends in '/', work on NAME inside it, the directory opened once (push passes it)")(
        "gzip,z", sig | dlt | psh | pul | rst, level_arg(), gzip_help.c_str())(
        "bzip2,i", sig | dlt | psh | pul | rst, level_arg(), bzip2_help.c_str())("zstd", sig | dlt | psh | pul | rst,
                                                                                 level_arg(), zstd_help.c_str())(
        "ultra", sig | dlt | psh | pul | rst,
        "signature, delta, push, pull, restore: allow zstd levels 20 to 22 (much more memory)")(
        "no-compress", psh | pul, "push, pull: send the delta uncompressed (default: zstd, as --zstd)")(
        "json", rdiff_commands | bench | inf | ver | psh | pul | history_commands,
        "signature, delta, patch, push, pull: statistics as JSON on stderr; benchmark, info, verify: print JSON")(
        "quiet,q", rdiff_commands | ver | psh | pul | history_commands,
        "signature, delta, patch, verify, push: no progress line, summary or warnings")(
        "check", inf, "info: only validate the file (exit status and one line)");
    // Accepted but not listed, as in rdiff.
    rows(hidden, commands)(",h", every_command, "Show this help message")("stats", rdiff_commands,
                                                                          "Show performance statistics");
    for (const auto* d : {&general, &signature, &delta, &io, &extensions, &hidden}) all.add(*d);
    for (const auto* d : {&general, &signature, &delta, &io, &hidden}) rdiff_all.add(*d);
}

const option_table& option_table::get() {
    static const option_table t;
    return t;
}

/// The options a command line may use. Under the name rdiff, rdelta's own options
/// are unknown, so they fail exactly as Debian's rdiff fails them (popt names the
/// element: `-j`, `-j2`, `--threads=2`), with no value consumed.
const po::options_description& accepted(bool as_rdiff) {
    return as_rdiff ? option_table::get().rdiff_all : option_table::get().all;
}

/// The option called --name. An empty name would match every option lacking a short name
/// (Boost compares it with their empty short names) and throw "ambiguous".
const po::option_description* find_long(const std::string& name, const po::options_description& options) {
    return name.empty() ? nullptr : options.find_nothrow(name, false);
}

bool takes_value(const po::option_description* d) {
    return d != nullptr && d->semantic()->max_tokens() > 0;
}

command_set option_commands(const std::string& name) {
    const auto& commands = option_table::get().commands;
    const auto found = commands.find(name);
    return found == commands.end() ? 0 : found->second;
}

}  // namespace rdelta::cli
