// option_table.hpp - every option of rdelta and rdiff, declared once in Boost
// option descriptions: its names, its value, its help line and the commands it
// applies to. The parser (command_line.cpp) and the help (help_text.cpp) read it.
#pragma once

#include "options.hpp"

#include <boost/program_options.hpp>

#include <functional>
#include <map>
#include <string>

namespace rdelta::cli {

/// The options in the sections --help lists them in.
struct option_table {
    boost::program_options::options_description general, signature, delta, io, extensions, hidden, all;
    boost::program_options::options_description rdiff_all;     ///< without the extensions: Debian rdiff's options
    std::map<std::string, command_set, std::less<>> commands;  ///< by long name (or "-h")
    option_table();

    /// The one table, built on first use.
    static const option_table& get();
};

/// The options a command line may use. Under the name rdiff, rdelta's own options
/// are unknown, so they fail exactly as Debian's rdiff fails them (popt names the
/// element: `-j`, `-j2`, `--threads=2`), with no value consumed.
const boost::program_options::options_description& accepted(bool as_rdiff);

/// The option called --name. An empty name would match every option lacking a short name
/// (Boost compares it with their empty short names) and throw "ambiguous".
const boost::program_options::option_description* find_long(const std::string& name,
                                                            const boost::program_options::options_description& options);

/// Whether the option takes a value (possibly an optional one).
bool takes_value(const boost::program_options::option_description* d);

}  // namespace rdelta::cli
