// command_line.cpp - rdiff 2.3.2's command line (popt) on top of Boost.program_options:
// the options (option_table.cpp) applied left to right, one popt step at a time
// (popt_syntax.hpp), then the command (command_table.hpp) and its files checked.
#include "options.hpp"

#include "command_table.hpp"
#include "option_table.hpp"
#include "popt_syntax.hpp"

#include <rdelta/basis_root.hpp>

#include <unistd.h>
#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <utility>

namespace rdelta::cli {
namespace {

namespace po = boost::program_options;

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
    if (key == "name-in-dir") {
        req_.name_in_dir = value;
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

/// After the options: the action, and the number of files it takes.
void command_line::resolve_action() {
    if (!as_rdiff_ && !positionals_.empty() && positionals_.front() == "help") {  // rdelta help [COMMAND]
        req_.show_help = true;
        if (positionals_.size() > 2) {
            fail("help takes one command at most");
        } else if (positionals_.size() == 2) {
            const std::string& topic = positionals_[1];
            req_.help_topic = topic.empty() ? action::none : match_action(topic, false);
            if (req_.help_topic == action::none)
                fail("help: no command '" + topic + "' (the commands: " + command_names() + ")");
        }
        return;
    }
    req_.act = positionals_.empty() ? action::none : match_action(positionals_.front(), as_rdiff_);
    if (req_.act == action::none) {
        if (as_rdiff_)
            fail("You must specify an action: `signature', `delta', or `patch'.");
        else if (positionals_.empty())
            fail("You must give a command: " + command_names());
        else
            fail("no command '" + positionals_.front() + "' (the commands: " + command_names() + ")");
        return;
    }
    req_.files.assign(positionals_.begin() + 1, positionals_.end());
    // The file count each command's row asks for (delta and patch cannot do without one).
    const command& c = *find_command(req_.act);
    if (req_.files.size() < c.min_files || req_.files.size() > c.max_files)
        fail(std::string("Usage for ") + c.name + ": " + (as_rdiff_ ? "rdiff " : "rdelta ") +
             (c.files_usage ? c.files_usage : c.usage));
    if (!as_rdiff_ && !error_) check_options_apply();
}

/// Under the name rdelta, an option that means nothing for the command is a usage
/// error naming the command and those it is for (each option's row says which).
void command_line::check_options_apply() {
    for (const std::string& key : given_) {
        const command_set applies_to = option_commands(key);
        if (applies_to & command_bit(req_.act)) continue;
        std::string commands;
        for (const command& c : command_table())
            if (applies_to & command_bit(c.act)) commands.append(commands.empty() ? "" : ", ").append(c.name);
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

}  // namespace

std::variant<request, usage_error> parse_command_line(int argc, const char* const* argv, bool as_rdiff) {
    const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    return command_line(as_rdiff).parse(args);
}

}  // namespace rdelta::cli
