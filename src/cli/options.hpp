// options.hpp - the command line of rdelta/rdiff, parsed into a request.
//
// Parsing follows rdiff 2.3.2 (popt) exactly for everything rdiff accepts; rdelta's
// own options are extensions. The options are declared once with
// Boost.program_options (option_table.cpp), which also produces --help
// (help_text.cpp); rdiff's quirks are small adapters around it (popt_syntax.hpp,
// command_line.cpp). The commands are the rows of command_table.cpp.
#pragma once

#include <rdelta/compression.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace rdelta::cli {

enum class action {
    none,
    signature,
    delta,
    patch,
    benchmark,
    recover,
    info,
    verify,
    push,
    history,
    restore,
    prune,
    pull
};  // from benchmark on: rdelta only
/// The commands an option applies to: one bit per action (command_bit).
using command_set = unsigned;
constexpr command_set command_bit(action a) {
    return 1u << static_cast<unsigned>(a);
}

/// --kernel-copy: when patch copies COPY runs file to file in the kernel.
enum class copy_mode { automatic, always, never };

/// Everything the command line asked for. Numbers are as given (not validated
/// beyond being integers in rdiff's `int` range); names of hash/rollsum are raw
/// strings, validated by the command (rdiff validates them after opening files).
struct request {
    bool show_help = false;            ///< -?, -h, --help reached, or `rdelta help` (stop: print help, exit 0)
    action help_topic = action::none;  ///< `rdelta help COMMAND`: that command's usage and options
    bool show_version = false;         ///< -V, --version reached (stop: print version, exit 0)
    action act = action::none;
    bool verbose = false;               ///< -v
    int verbose_count = 0;              ///< how many -v were reached (rdiff warns once per -v)
    bool statistics = false;            ///< -s, --statistics, --stats
    bool force = false;                 ///< -f, --force
    std::string hash = "blake2";        ///< -H, --hash
    std::string rollsum = "rabinkarp";  ///< -R, --rollsum
    std::int64_t block_size = 0;        ///< -b, --block-size
    std::int64_t sum_size = 0;          ///< -S, --sum-size
    std::int64_t input_size = 0;        ///< -I, --input-size
    std::int64_t output_size = 0;       ///< -O, --output-size
    std::vector<std::string> files;     ///< positionals after the action

    // rdelta extensions: unknown options under the name rdiff, as in Debian's rdiff.
    std::int64_t threads = 0;           ///< -j, --threads: worker threads; 0 = all cores
    std::int64_t max_output = 0;        ///< --max-output: patch output limit in bytes; 0 = none
    std::int64_t max_strong_work = -1;  ///< --max-strong-work: delta work budget factor; -1 = default, 0 = none
    std::optional<bool> progress;       ///< --progress / --no-progress; unset = command decides
    bool nocache = false;               ///< --nocache: do not keep file data in the page cache
    bool sparse = true;                 ///< --no-sparse turns it off: patch writes zero runs as holes
    copy_mode kernel_copy = copy_mode::automatic;  ///< --kernel-copy: patch's COPYs through copy_file_range
    bool durable = false;                          ///< --fsync: outputs are flushed to disk before they are published
    bool checksum = false;        ///< --checksum: delta appends the whole-file checksum trailer (the default)
    bool verify = false;          ///< --verify: patch requires and reports the trailer
    bool in_place = false;        ///< --in-place: patch updates the basis file itself
    bool in_place_safe = false;   ///< --in-place-safe: delta that patch --in-place can apply
    bool no_checksum = false;     ///< --no-checksum: delta without the trailer (rdiff's bytes)
    bool journal = true;          ///< --no-journal turns it off: patch --in-place without undo journal
    std::string new_signature;    ///< --new-signature FILE: delta also writes the new file's signature
    std::string basis_root;       ///< --basis-root ROOT: the root of the basis the delta names (32 hex digits)
    std::string ssh_command;      ///< -e, --ssh CMD: push runs the remote side through CMD (default "ssh")
    std::string remote_rdelta;    ///< --remote-rdelta PATH: push's rdelta on the remote host (default "rdelta")
    std::string signature_store;  ///< --signature-store FILE: where push keeps the remote image's signature
    std::string name_in_dir;      ///< --name-in-dir NAME: the file worked on is NAME when its path is a directory

    codec compression = codec::none;  ///< -z/--gzip, -i/--bzip2, --zstd: compress signature or delta output
    int compression_level = 0;        ///< its LEVEL (the codec's default when none was attached)
    bool ultra = false;               ///< --ultra: zstd levels 20 to 22 allowed
    bool no_compress = false;         ///< --no-compress: push sends its delta uncompressed (default: zstd)
    bool json = false;                ///< --json: machine-readable output (benchmark, info; statistics of the others)
    bool check = false;               ///< --check: info only validates the file
    bool quiet = false;               ///< -q, --quiet: no progress line, summary or warnings
    bool keep_history = false;        ///< --keep-history: patch --in-place, push keep restore points
    std::string history_dir;          ///< --history-dir DIR: the image's history folder (default beside it)
    std::int64_t keep_last = 0, keep_daily = 0, keep_weekly = 0, keep_monthly = 0;  ///< prune's rules
    bool dry_run = false;        ///< --dry-run: prune lists what would go
    bool check_history = false;  ///< --history: verify checks the history too
    std::string delta_against;   ///< --delta-against SIG: restore writes a delta against SIG instead
    std::string at_point;        ///< --at POINT: pull brings back that point (default: the image)
};

/// A usage error: message without program name, e.g. "unknown option: --bogus".
struct usage_error {
    std::string message;
    int verbose_count = 0;  ///< -v reached before the error (rdiff has warned for each already)
};

/// Parse argv; argv[0] is the program name and is skipped. Never throws a parse error.
/// `as_rdiff` is true when invoked under the name rdiff: rdelta's own options are then
/// unknown options, rejected with Debian rdiff's message.
std::variant<request, usage_error> parse_command_line(int argc, const char* const* argv, bool as_rdiff);

/// The --help text. For rdiff it is byte-identical to Debian rdiff 2.3.2's.
std::string help_text(bool as_rdiff);

/// `rdelta help COMMAND`: the command's usage and the options that apply to it.
std::string command_help(action command);

/// The command's name as typed in full ("signature", "recover", ...).
const char* action_name(action a);

/// The commands the option called --NAME (its long name, without dashes) applies to
/// under the name rdelta; 0 for a name that is not an option.
command_set option_commands(const std::string& name);

/// The --version text (rdiff's shape, naming rdelta when not invoked as rdiff).
std::string version_text(bool as_rdiff);

}  // namespace rdelta::cli
