// popt_syntax.hpp - rdiff 2.3.2's command-line syntax (popt) on top of
// Boost.program_options: argv split into popt's steps, popt's messages, and
// popt's reading of numbers.
//
// popt acts on each option as it reaches it (`--help --bogus` prints help, `--bogus
// --help` fails), and names the last argv element it consumed in every message (`-sx`,
// not `-x`; `12abc` for `-b 12abc`). Boost parses everything first and throws on the
// first problem anywhere. So Boost gets one popt "step" at a time (one element, plus the
// next when the first ends in an option still wanting its value), and each step's
// options are applied, left to right, before the next step is parsed
// (command_line.cpp). The other adapters are commented where they are: a value
// spelled like one of our short options, `--name=` with nothing after it, `---x`.
#pragma once

#include <boost/program_options.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rdelta::cli {

// popt's messages (poptStrerror), each followed by ": " and the offending argv element.
inline constexpr std::string_view unknown_option = "unknown option: ";
inline constexpr std::string_view missing_argument = "missing argument: ";
inline constexpr std::string_view unwanted_argument = "option does not take an argument: ";
inline constexpr std::string_view bad_number = "invalid numeric value: ";
inline constexpr std::string_view out_of_range = "number too large or too small: ";

/// One popt step, parsed by Boost: an option element, plus the next element when the first
/// ends in an option still wanting its value, or `--` and everything after it.
struct step {
    std::vector<boost::program_options::option> options;
    std::string named;            ///< the element popt names in messages: the last consumed
    bool short_attached = false;  ///< values are glued to a short option, as in `-b=5`
    bool value_missing = false;   ///< argv ended where the last option's value should be
    std::optional<std::string> error;
};

/// The step starting at args[i]; advances i past the elements it consumes.
step take_step(std::span<const std::string> args, std::size_t& i,
               const boost::program_options::options_description& options);

enum class number_status { ok, invalid, out_of_range };

/// popt's POPT_ARG_INT conversion: strtoll with base 0 (so hex, octal, a sign and leading
/// blanks are accepted and "" is 0), trailing junk rejected, then a range check.
number_status parse_number(const std::string& text, std::int64_t lo, std::int64_t hi, std::int64_t& out);

}  // namespace rdelta::cli
