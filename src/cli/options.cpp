// options.cpp - rdiff 2.3.2's command line (popt) on top of Boost.program_options.
//
// The options are declared once, below, in Boost option descriptions; they drive both
// parsing and --help. Where popt and Boost disagree, small adapters bridge the gap:
//
//  * popt acts on each option as it reaches it (`--help --bogus` prints help, `--bogus
//    --help` fails), and names the last argv element it consumed in every message (`-sx`,
//    not `-x`; `12abc` for `-b 12abc`). Boost parses everything first and throws on the
//    first problem anywhere. So Boost gets one popt "step" at a time (one element, plus the
//    next when the first ends in an option still wanting its value), and each step's
//    options are applied, left to right, before the next step is parsed.
//  * The other adapters are commented where they are: a value spelled like one of our short
//    options, `--name=` with nothing after it, `---x`, and popt's `-b=5` and `-V=1`.
#include "options.hpp"

#include <rdelta/basis_root.hpp>

#include <rdelta/version.hpp>

#include <boost/program_options.hpp>

#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

namespace rdelta::cli {
namespace {

namespace po = boost::program_options;
namespace cls = po::command_line_style;

// popt's messages (poptStrerror), each followed by ": " and the offending argv element.
constexpr std::string_view unknown_option = "unknown option: ";
constexpr std::string_view missing_argument = "missing argument: ";
constexpr std::string_view unwanted_argument = "option does not take an argument: ";
constexpr std::string_view bad_number = "invalid numeric value: ";
constexpr std::string_view out_of_range = "number too large or too small: ";

// ----- The options: the single source of truth for parsing and --help ----------------

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

struct option_table {
    po::options_description general, signature, delta, io, extensions, hidden, all;
    po::options_description rdiff_all;                         ///< without the extensions: Debian rdiff's options
    std::map<std::string, command_set, std::less<>> commands;  ///< by long name (or "-h")
    option_table();
};

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

const option_table& table() {
    static const option_table t;
    return t;
}

/// The options a command line may use. Under the name rdiff, rdelta's own options
/// are unknown, so they fail exactly as Debian's rdiff fails them (popt names the
/// element: `-j`, `-j2`, `--threads=2`), with no value consumed.
const po::options_description& accepted(bool as_rdiff) {
    return as_rdiff ? table().rdiff_all : table().all;
}

// popt's syntax minus abbreviations: Boost's default style would accept `--stat`.
constexpr int parser_style = cls::default_style & ~cls::allow_guessing;

std::vector<po::option> boost_parse(const std::vector<std::string>& tokens, const po::options_description& options) {
    return po::command_line_parser(tokens)
        .options(options)
        .style(parser_style)
        .allow_unregistered()  // unknown options stay in order, so earlier ones act first
        .run()
        .options;
}

/// The option called --name. An empty name would match every option lacking a short name
/// (Boost compares it with their empty short names) and throw "ambiguous".
const po::option_description* find_long(const std::string& name, const po::options_description& options) {
    return name.empty() ? nullptr : options.find_nothrow(name, false);
}

bool takes_value(const po::option_description* d) {
    return d != nullptr && d->semantic()->max_tokens() > 0;
}

bool is_short_form(std::string_view element) {
    return element.size() > 1 && element[0] == '-' && element[1] != '-';
}

// ----- Splitting argv into popt steps ----------------------------------------------------

/// One popt step, parsed by Boost: an option element, plus the next element when the first
/// ends in an option still wanting its value, or `--` and everything after it.
struct step {
    std::vector<po::option> options;
    std::string named;            ///< the element popt names in messages: the last consumed
    bool short_attached = false;  ///< values are glued to a short option, as in `-b=5`
    bool value_missing = false;   ///< argv ended where the last option's value should be
    std::optional<std::string> error;
};

/// Boost rejects `--name=` outright; popt gives the option an empty value.
std::vector<std::string> split_empty_long_value(const std::string& element, const po::options_description& options) {
    if (element.starts_with("--") && element.find('=') == element.size() - 1) {
        const std::string name = element.substr(2, element.size() - 3);
        if (takes_value(find_long(name, options))) return {"--" + name, ""};
    }
    return {element};
}

/// Boost refuses a separate value spelled like one of our short options (`-S -s` is
/// "missing argument" to Boost), while popt takes whatever element follows. Glued to its
/// option (`-S-s`, `--sum-size=-s`) Boost takes it. Values not starting with '-' stay
/// separate, as Boost cannot glue an empty one.
std::vector<std::string> option_with_value(const std::string& option, const std::string& value) {
    if (!value.starts_with('-')) return {option, value};
    return {option.starts_with("--") ? option + "=" + value : option + value};
}

std::string syntax_message(const po::invalid_command_line_syntax& e, const std::string& element,
                           const po::options_description& options) {
    using syntax = po::invalid_command_line_syntax;
    if (e.kind() == syntax::extra_parameter) return std::string(unwanted_argument) + element;
    if (e.kind() == syntax::empty_adjacent_parameter) {
        // `--name=` for a value option was split above, so a known name here is a flag.
        const std::string name = element.substr(2, element.size() - 3);
        return std::string(find_long(name, options) ? unwanted_argument : unknown_option) + element;
    }
    return e.what();
}

/// The step starting at args[i]; advances i past the elements it consumes.
step take_step(std::span<const std::string> args, std::size_t& i, const po::options_description& options) {
    const std::string& element = args[i++];
    step s;
    s.named = element;
    if (element == "--") {  // Boost honours "--": everything after it is positional
        s.options = boost_parse({args.begin() + static_cast<std::ptrdiff_t>(i) - 1, args.end()}, options);
        i = args.size();
        return s;
    }
    if (element.starts_with("---")) {  // Boost would read `---s` as the short option -s
        s.error = std::string(unknown_option) + element;
        return s;
    }
    try {
        s.options = boost_parse(split_empty_long_value(element, options), options);
        s.short_attached = is_short_form(element);
    } catch (const po::invalid_command_line_syntax& e) {
        // Boost tells us when the element ends in an option wanting the next one as value.
        if (e.kind() != po::invalid_command_line_syntax::missing_parameter) {
            s.error = syntax_message(e, element, options);
        } else if (i == args.size()) {
            // Parse with a stand-in value, so options earlier in a cluster (`-Vb`) still act.
            s.value_missing = true;
            s.options = boost_parse({element, ""}, options);
        } else {
            s.named = args[i++];
            s.options = boost_parse(option_with_value(element, s.named), options);
        }
    }
    return s;
}

// ----- Numbers ---------------------------------------------------------------------------

enum class number_status { ok, invalid, out_of_range };

/// popt's POPT_ARG_INT conversion: strtoll with base 0 (so hex, octal, a sign and leading
/// blanks are accepted and "" is 0), trailing junk rejected, then a range check.
number_status parse_number(const std::string& text, std::int64_t lo, std::int64_t hi, std::int64_t& out) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 0);
    if (*end != '\0') return number_status::invalid;
    if (errno == ERANGE || value < lo || value > hi) return number_status::out_of_range;
    out = value;
    return number_status::ok;
}

using int_limits = std::numeric_limits<int>;
using int64_limits = std::numeric_limits<std::int64_t>;

struct numeric_option {
    std::string_view key;
    std::int64_t request::*field;
    std::int64_t lo, hi;  ///< rdiff's options are C ints; rdelta's own are 64-bit
};

constexpr numeric_option numeric_options[] = {
    {"block-size", &request::block_size, int_limits::min(), int_limits::max()},
    {"sum-size", &request::sum_size, int_limits::min(), int_limits::max()},
    {"input-size", &request::input_size, int_limits::min(), int_limits::max()},
    {"output-size", &request::output_size, int_limits::min(), int_limits::max()},
    {"threads", &request::threads, int64_limits::min(), int64_limits::max()},
    {"max-output", &request::max_output, int64_limits::min(), int64_limits::max()},
    {"max-strong-work", &request::max_strong_work, int64_limits::min(), int64_limits::max()},
    {"keep-last", &request::keep_last, 0, int64_limits::max()},
    {"keep-daily", &request::keep_daily, 0, int64_limits::max()},
    {"keep-weekly", &request::keep_weekly, 0, int64_limits::max()},
    {"keep-monthly", &request::keep_monthly, 0, int64_limits::max()},
};

// ----- Applying options, left to right ---------------------------------------------------

enum class flow { go_on, stop };

class command_line {
public:
    explicit command_line(bool as_rdiff) : as_rdiff_(as_rdiff) {}
    std::variant<request, usage_error> parse(std::span<const std::string> args);

private:
    flow apply(const step& s);
    flow apply_option(const po::option& o, const step& s);
    flow apply_value(const std::string& key, const std::string& value, const step& s);
    flow apply_compression(codec c, const po::option& o, const step& s);
    flow fail(std::string message);
    void resolve_action();
    void check_options_apply();
    bool level_left_apart(std::span<const std::string> args, std::size_t next);

    bool as_rdiff_;
    request req_;
    std::optional<usage_error> error_;
    std::vector<std::string> positionals_;
    std::vector<std::string> given_;         ///< the options' keys, in order
    std::optional<std::string> bare_level_;  ///< the element of a compression option without its level, just applied
};

flow command_line::fail(std::string message) {
    error_ = usage_error{std::move(message), req_.verbose_count};
    return flow::stop;
}

/// The option's value as popt sees it: popt skips one '=' right after a short option
/// (`-b=5`, `-H=md4`).
std::string option_value(const po::option& o, const step& s) {
    std::string value = o.value.empty() ? std::string() : o.value.front();
    if (s.short_attached && value.starts_with('=')) value.erase(0, 1);
    return value;
}

codec compression_option(const std::string& key) {
    if (key == "gzip") return codec::gzip;
    if (key == "bzip2") return codec::bzip2;
    if (key == "zstd") return codec::zstd;
    return codec::none;
}

/// Boost splits `-V=1` into -V and an unknown option "-="; popt rejects it before acting.
bool is_glued_equals(const po::option& o) {
    return o.unregistered && o.string_key == "-=";
}

flow command_line::apply(const step& s) {
    bare_level_.reset();
    if (s.error) return fail(*s.error);
    for (std::size_t k = 0; k < s.options.size(); ++k) {
        const bool last = k + 1 == s.options.size();
        if (!last && is_glued_equals(s.options[k + 1])) return fail(std::string(unwanted_argument) + s.named);
        if (last && s.value_missing) return fail(std::string(missing_argument) + s.named);
        if (apply_option(s.options[k], s) == flow::stop) return flow::stop;
    }
    return flow::go_on;
}

action match_action(std::string_view word, bool as_rdiff);

flow command_line::apply_option(const po::option& o, const step& s) {
    const std::string& key = o.string_key;
    if (key.empty()) {  // a positional
        positionals_.push_back(o.value.front());
        return flow::go_on;
    }
    if (o.unregistered) return fail(std::string(unknown_option) + s.named);
    given_.push_back(key);
    if (key == "help" || key == "-h") {
        req_.show_help = true;
        // `rdelta delta --help`: that command's usage and options (rdiff prints it all).
        if (!as_rdiff_ && !positionals_.empty()) req_.help_topic = match_action(positionals_.front(), false);
        return flow::stop;
    } else if (key == "version") {
        req_.show_version = true;
        return flow::stop;
    } else if (key == "verbose") {
        req_.verbose = true;
        ++req_.verbose_count;
    } else if (key == "statistics" || key == "stats") {
        req_.statistics = true;
    } else if (key == "force") {
        req_.force = true;
    } else if (key == "progress" || key == "no-progress") {
        req_.progress = key == "progress";
    } else if (key == "nocache") {
        req_.nocache = true;
    } else if (key == "no-sparse") {
        req_.sparse = false;
    } else if (key == "quiet") {
        req_.quiet = true;
    } else if (key == "check") {
        req_.check = true;
    } else if (key == "json") {
        req_.json = true;
    } else if (key == "ultra") {
        req_.ultra = true;
    } else if (key == "fsync") {
        req_.durable = true;
    } else if (key == "no-fsync") {
        req_.durable = false;
    } else if (key == "checksum") {
        req_.checksum = true;
    } else if (key == "verify") {
        req_.verify = true;
    } else if (key == "in-place") {
        req_.in_place = true;
    } else if (key == "in-place-safe") {
        req_.in_place_safe = true;
    } else if (key == "no-checksum") {
        req_.no_checksum = true;
    } else if (key == "no-journal") {
        req_.journal = false;
    } else if (key == "keep-history") {
        req_.keep_history = true;
    } else if (key == "dry-run") {
        req_.dry_run = true;
    } else if (key == "history") {
        req_.check_history = true;
    } else if (key == "no-compress") {  // the last of it and -z, -i, --zstd wins
        req_.no_compress = true;
        req_.compression = codec::none;
    } else if (const codec c = compression_option(key); c != codec::none) {
        return apply_compression(c, o, s);
    } else {
        return apply_value(key, option_value(o, s), s);
    }
    return flow::go_on;
}

/// -z, -z9, -z=9, --gzip, --gzip=9 (and -i, --bzip2, --zstd); the last one given wins.
/// The level is taken only when attached: popt would also take the next word when it
/// does not start with '-', so `-z signature` would fail on the level "signature".
/// Each step holds one argv element, so Boost never sees that word here.
flow command_line::apply_compression(codec c, const po::option& o, const step& s) {
    if (as_rdiff_) return fail(std::string(unknown_option) + s.named);  // Debian's rdiff has none of them
    req_.compression = c;
    req_.compression_level = default_level(c);
    req_.no_compress = false;
    if (o.value.empty()) {
        bare_level_ = s.named;
        return flow::go_on;
    }
    std::int64_t level = 0;
    const number_status status = parse_number(option_value(o, s), int_limits::min(), int_limits::max(), level);
    if (status == number_status::invalid) return fail(std::string(bad_number) + s.named);
    if (status == number_status::out_of_range || level < 1 || level > max_level(c))
        return fail(std::string(codec_name(c)) + " level must be 1 to " + std::to_string(max_level(c)) + ": " +
                    s.named);
    req_.compression_level = static_cast<int>(level);
    return flow::go_on;
}

flow command_line::apply_value(const std::string& key, const std::string& value, const step& s) {
    if (key == "hash" || key == "rollsum") {  // validated by the command, as rdiff does
        (key == "hash" ? req_.hash : req_.rollsum) = value;
        return flow::go_on;
    }
    if (key == "max-strong-work" && as_rdiff_)
        return fail(std::string(unknown_option) + s.named);  // rdiff has no budget
    if (key == "new-signature") {
        req_.new_signature = value;
        return flow::go_on;
    }
    if (key == "basis-root") {
        if (!root_from_hex(value)) return fail("--basis-root takes 32 hex digits (a chunk root): " + value);
        req_.basis_root = value;
        return flow::go_on;
    }
    if (key == "history-dir" || key == "delta-against" || key == "at") {
        (key == "history-dir" ? req_.history_dir : key == "at" ? req_.at_point : req_.delta_against) = value;
        return flow::go_on;
    }
    if (key == "ssh" || key == "remote-rdelta" || key == "signature-store") {
        (key == "ssh" ? req_.ssh_command : key == "remote-rdelta" ? req_.remote_rdelta : req_.signature_store) = value;
        return flow::go_on;
    }
    if (key == "kernel-copy") {
        static constexpr std::pair<std::string_view, copy_mode> modes[] = {
            {"auto", copy_mode::automatic}, {"always", copy_mode::always}, {"never", copy_mode::never}};
        for (const auto& [word, mode] : modes)
            if (value == word) return req_.kernel_copy = mode, flow::go_on;
        return fail(s.named + " takes auto, always or never, not '" + value + "'");
    }
    for (const auto& n : numeric_options) {
        if (key != n.key) continue;
        switch (parse_number(value, n.lo, n.hi, req_.*n.field)) {
            case number_status::ok: return flow::go_on;
            case number_status::invalid: return fail(std::string(bad_number) + s.named);
            case number_status::out_of_range: return fail(std::string(out_of_range) + s.named);
        }
    }
    return fail(std::string(unknown_option) + s.named);  // declared but not handled: a bug
}

/// rdiff's isprefix(): the action may be any prefix of the command name, even "".
/// `benchmark` and `recover` (rdelta's own) exist only under the name rdelta.
action match_action(std::string_view word, bool as_rdiff) {
    if (std::string_view("signature").starts_with(word)) return action::signature;
    if (std::string_view("delta").starts_with(word)) return action::delta;
    if (std::string_view("patch").starts_with(word)) return action::patch;
    if (!as_rdiff && word.size() >= 2 && std::string_view("benchmark").starts_with(word)) return action::benchmark;
    if (!as_rdiff && !word.empty() && std::string_view("info").starts_with(word)) return action::info;
    if (!as_rdiff && std::string_view("recover").starts_with(word)) return action::recover;
    if (!as_rdiff && !word.empty() && std::string_view("verify").starts_with(word)) return action::verify;
    if (!as_rdiff && word.size() >= 2 && std::string_view("push").starts_with(word)) return action::push;
    if (!as_rdiff && word.size() >= 2 && std::string_view("history").starts_with(word)) return action::history;
    if (!as_rdiff && word.size() >= 3 && std::string_view("restore").starts_with(word)) return action::restore;
    if (!as_rdiff && word.size() >= 2 && std::string_view("prune").starts_with(word)) return action::prune;
    if (!as_rdiff && word.size() >= 2 && std::string_view("pull").starts_with(word)) return action::pull;
    return action::none;
}

constexpr const char* every_command_name =
    "signature, delta, patch, recover, verify, push, pull, history, restore, prune, info, benchmark, help";

/// After the options: the action, and the one file delta and patch cannot do without.
void command_line::resolve_action() {
    if (!as_rdiff_ && !positionals_.empty() && positionals_.front() == "help") {  // rdelta help [COMMAND]
        req_.show_help = true;
        if (positionals_.size() > 2) {
            fail("help takes one command at most");
        } else if (positionals_.size() == 2) {
            const std::string& topic = positionals_[1];
            req_.help_topic = topic.empty() ? action::none : match_action(topic, false);
            if (req_.help_topic == action::none)
                fail("help: no command '" + topic + "' (the commands: " + every_command_name + ")");
        }
        return;
    }
    req_.act = positionals_.empty() ? action::none : match_action(positionals_.front(), as_rdiff_);
    if (req_.act == action::none) {
        if (as_rdiff_)
            fail("You must specify an action: `signature', `delta', or `patch'.");
        else if (positionals_.empty())
            fail("You must give a command: " + std::string(every_command_name));
        else
            fail("no command '" + positionals_.front() + "' (the commands: " + every_command_name + ")");
        return;
    }
    req_.files.assign(positionals_.begin() + 1, positionals_.end());
    const std::string prog = as_rdiff_ ? "rdiff" : "rdelta";
    if (req_.act == action::delta && req_.files.empty())
        fail("Usage for delta: " + prog + " [OPTIONS] delta SIGNATURE [NEWFILE [DELTA]]");
    if (req_.act == action::patch && req_.files.empty())
        fail("Usage for patch: " + prog + " [OPTIONS] patch BASIS [DELTA [NEW]]");
    if (req_.act == action::info && req_.files.empty())
        fail("Usage for info: " + prog + " info [--check] [--json] FILE");
    if (req_.act == action::recover && req_.files.empty()) fail("Usage for recover: " + prog + " recover IMAGE");
    if (req_.act == action::verify && req_.files.size() != 1)
        fail("Usage for verify: " + prog + " verify [--history] IMAGE");
    if (req_.act == action::push && req_.files.size() != 2)
        fail("Usage for push: " + prog + " [OPTIONS] push IMAGE [USER@]HOST:PATH");
    if (req_.act == action::pull && req_.files.size() != 2)
        fail("Usage for pull: " + prog + " [OPTIONS] pull [--at POINT] [USER@]HOST:PATH LOCAL");
    if (req_.act == action::history && req_.files.size() != 1)
        fail("Usage for history: " + prog + " history [--json] IMAGE");
    if (req_.act == action::restore && req_.files.size() != 3)
        fail("Usage for restore: " + prog + " restore [--delta-against SIG] IMAGE POINT OUTPUT");
    if (req_.act == action::prune && req_.files.size() != 1)
        fail("Usage for prune: " + prog +
             " prune [--keep-last N] [--keep-daily D] [--keep-weekly W] [--keep-monthly M] [--dry-run] IMAGE");
    if (!as_rdiff_ && !error_) check_options_apply();
}

/// Under the name rdelta, an option that means nothing for the command is a usage
/// error naming the command and those it is for (each option's row says which).
void command_line::check_options_apply() {
    for (const std::string& key : given_) {
        const command_set applies_to = option_commands(key);
        if (applies_to & command_bit(req_.act)) continue;
        std::string commands;
        for (const action a :
             {action::signature, action::delta, action::patch, action::recover, action::verify, action::push,
              action::pull, action::history, action::restore, action::prune, action::info, action::benchmark})
            if (applies_to & command_bit(a)) commands.append(commands.empty() ? "" : ", ").append(action_name(a));
        const std::string name = key.starts_with('-') ? key : "--" + key;
        const bool compression = compression_option(key) != codec::none || key == "ultra";
        fail(name + " does not apply to " + action_name(req_.act) + " (only to " + commands + ")" +
             (compression && req_.act == action::patch ? "; patch finds a compressed delta by itself" : ""));
        return;
    }
}

/// `-z 9`: a level left apart from its option (-z, -i, --gzip, --bzip2, --zstd take
/// it attached only) would be taken for the command or a file name. A number there
/// is refused when it cannot be the file meant: no command yet, or no such file.
bool command_line::level_left_apart(std::span<const std::string> args, std::size_t next) {
    if (!bare_level_ || next >= args.size()) return false;
    const std::string& word = args[next];
    if (word.empty() || word.size() > 2 ||
        !std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    if (!positionals_.empty() && access(word.c_str(), F_OK) == 0) return false;
    const std::string& option = *bare_level_;
    const std::string attached = option.starts_with("--") ? option + "=" + word : option + word;
    fail("attach the level to " + option + ": " + attached + " (a separate " + word +
         " would be taken for the command or a file name)");
    return true;
}

std::variant<request, usage_error> command_line::parse(std::span<const std::string> args) {
    try {
        for (std::size_t i = 0; i < args.size();) {
            if (apply(take_step(args, i, accepted(as_rdiff_))) == flow::stop) break;
            if (level_left_apart(args, i)) break;
        }
    } catch (const std::exception& e) {  // not expected: every known Boost error is handled
        fail(e.what());
    }
    if (!error_ && !req_.show_help && !req_.show_version) resolve_action();
    if (error_) return *error_;
    return req_;
}

// ----- Help and version --------------------------------------------------------------

/// One option as popt lists it: "  -b, --block-size=BYTES" padded to column 28.
std::string help_line(const po::option_description& d) {
    // Built with append(): `"--" + std::string` trips a bogus GCC 12 -Wrestrict warning.
    const std::string shown = d.canonical_display_name(cls::allow_dash_for_short);
    std::string line = "  ";
    line.append(shown != d.long_name() ? shown + ", " : "    ").append("--").append(d.long_name());
    if (takes_value(&d)) {
        const bool optional = d.semantic()->min_tokens() == 0;
        line.append(optional ? "[=" : "=").append(d.semantic()->name()).append(optional ? "]" : "");
    }
    line.resize(std::max<std::size_t>(28, line.size() + 1), ' ');
    return line.append(d.description()).append("\n");
}

std::string help_section(const char* title, const po::options_description& options) {
    std::string text = std::string(title) + "\n";
    for (const auto& d : options.options()) text += help_line(*d);
    return text;
}

/// rdelta's commands, one line each, in the order of the usage lines.
struct command_line_help {
    action command;
    const char* usage;  ///< after "Usage: rdelta "
    const char* what;
};
constexpr command_line_help command_lines[] = {
    {action::signature, "[OPTIONS] signature [BASIS [SIGNATURE]]", "write the signature of BASIS"},
    {action::delta, "[OPTIONS] delta SIGNATURE [NEWFILE [DELTA]]", "write the delta from SIGNATURE's file to NEWFILE"},
    {action::patch, "[OPTIONS] patch BASIS [DELTA [NEWFILE]]", "apply DELTA to BASIS"},
    {action::recover, "recover IMAGE", "finish or roll back an interrupted in-place patch of IMAGE"},
    {action::verify, "verify [--history] IMAGE", "compare IMAGE with the manifest its last in-place patch left"},
    {action::push, "[OPTIONS] push IMAGE [USER@]HOST:PATH", "send IMAGE's changes over ssh into the copy at PATH"},
    {action::pull, "[OPTIONS] pull [--at POINT] [USER@]HOST:PATH LOCAL",
     "bring the remote image (or one of its restore points) back onto LOCAL over ssh"},
    {action::history, "history [--json] IMAGE", "list IMAGE's restore points, newest first"},
    {action::restore, "restore IMAGE POINT OUTPUT", "write IMAGE as it was at a restore point (number or date)"},
    {action::prune, "prune RULE... [--dry-run] IMAGE",
     "drop the restore points that no rule (--keep-last, --keep-daily, --keep-weekly, --keep-monthly) keeps"},
    {action::info, "info [--check] [--json] FILE", "describe and check a signature or a delta"},
    {action::benchmark, "benchmark [--json]", "measure the checksum kernels, signature, delta and patch"},
};

std::string usage_lines(const std::string& prog) {
    const std::string indent(std::string_view("Usage: ").size() + prog.size() + 1, ' ');
    std::string text = "Usage: " + prog + " ";
    for (const auto& c : command_lines) {
        if (prog == "rdiff" && c.command != action::signature && c.command != action::delta &&
            c.command != action::patch)
            break;
        text += (c.command == action::signature ? "" : indent) + c.usage + "\n";
    }
    return text;
}

constexpr std::string_view version_body =
    "Copyright (C) 1997-2016 by Martin Pool, Andrew Tridgell and others.\n"
    "http://librsync.sourcefrog.net/\n"
    "Capabilities: 64 bit files, trace disabled\n"
    "\n"
    "librsync comes with NO WARRANTY, to the extent permitted by law.\n"
    "You may redistribute copies of librsync under the terms of the GNU\n"
    "Lesser General Public License.  For more information about these\n"
    "matters, see the files named COPYING.\n";

}  // namespace

std::variant<request, usage_error> parse_command_line(int argc, const char* const* argv, bool as_rdiff) {
    const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    return command_line(as_rdiff).parse(args);
}

const char* action_name(action a) {
    switch (a) {
        case action::signature: return "signature";
        case action::delta: return "delta";
        case action::patch: return "patch";
        case action::benchmark: return "benchmark";
        case action::recover: return "recover";
        case action::info: return "info";
        case action::verify: return "verify";
        case action::push: return "push";
        case action::pull: return "pull";
        case action::history: return "history";
        case action::restore: return "restore";
        case action::prune: return "prune";
        case action::none: break;
    }
    return "";
}

command_set option_commands(const std::string& name) {
    const auto& commands = table().commands;
    const auto found = commands.find(name);
    return found == commands.end() ? 0 : found->second;
}

std::string command_help(action command) {
    std::string text;
    for (const auto& c : command_lines)
        if (c.command == command) {
            text = std::string("Usage: rdelta ") + c.usage + "\n\n" + c.what + ".\n\n";
            text[text.find("\n\n") + 2] = static_cast<char>(std::toupper(static_cast<unsigned char>(c.what[0])));
        }
    text += std::string("Options for ") + action_name(command) + ":\n";
    const option_table& t = table();
    for (const auto* section : {&t.general, &t.signature, &t.delta, &t.io, &t.extensions})
        for (const auto& d : section->options())
            if (option_commands(d->long_name()) & command_bit(command)) text += help_line(*d);
    return text;
}

std::string help_text(bool as_rdiff) {
    const option_table& t = table();
    std::string text = usage_lines(as_rdiff ? "rdiff" : "rdelta") + "\n";
    if (!as_rdiff) {
        text += "Commands (`rdelta help COMMAND' lists the options of one):\n";
        for (const auto& c : command_lines) {
            std::string line = std::string("  ") + action_name(c.command);
            line.resize(std::max<std::size_t>(14, line.size() + 1), ' ');
            text += line + c.what + "\n";
        }
        text += "\n";
    }
    text += help_section("Options:", t.general);
    text += help_section("Signature generation options:", t.signature);
    text += help_section("Delta-encoding options:", t.delta);
    text += help_section("IO options:", t.io);
    if (!as_rdiff) text += help_section("rdelta options:", t.extensions);
    return text;
}

std::string version_text(bool as_rdiff) {
    if (as_rdiff) return "rdiff (librsync 2.3.2)\n" + std::string(version_body);
    return std::string("rdelta ") + RDELTA_VERSION + " (librsync 2.3.2 compatible)\n" + "SIMD in use: " + simd_level() +
           "\nBuild: " + RDELTA_BUILD_OPTIONS + "\n" +
           "Copyright (C) 2026 the rdelta authors.\n"
           "License LGPL-2.1-or-later: GNU Lesser General Public License, version 2.1 or\n"
           "later (the file COPYING). This is free software: you may change and\n"
           "redistribute it. There is NO WARRANTY, to the extent permitted by law.\n";
}

}  // namespace rdelta::cli
