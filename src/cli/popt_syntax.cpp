// popt_syntax.cpp - popt's steps and numbers over Boost (popt_syntax.hpp).
#include "popt_syntax.hpp"

#include "option_table.hpp"

#include <cerrno>
#include <cstdlib>

namespace rdelta::cli {
namespace {

namespace po = boost::program_options;
namespace cls = po::command_line_style;

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

bool is_short_form(std::string_view element) {
    return element.size() > 1 && element[0] == '-' && element[1] != '-';
}

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

}  // namespace

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

number_status parse_number(const std::string& text, std::int64_t lo, std::int64_t hi, std::int64_t& out) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 0);
    if (*end != '\0') return number_status::invalid;
    if (errno == ERANGE || value < lo || value > hi) return number_status::out_of_range;
    out = value;
    return number_status::ok;
}

}  // namespace rdelta::cli
