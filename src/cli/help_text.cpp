// help_text.cpp - --help (rdiff's exact text under its name), `rdelta help
// COMMAND` and --version, from the option table and the command table.
#include "options.hpp"

#include "command_table.hpp"
#include "option_table.hpp"

#include <rdelta/version.hpp>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace rdelta::cli {
namespace {

namespace po = boost::program_options;
namespace cls = po::command_line_style;

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

/// The usage lines of the commands (under the name rdiff, rdiff's three).
std::string usage_lines(const std::string& prog) {
    const std::string indent(std::string_view("Usage: ").size() + prog.size() + 1, ' ');
    std::string text = "Usage: " + prog + " ";
    bool first = true;
    for (const command& c : command_table()) {
        if (prog == "rdiff" && !c.rdiff_too) continue;
        text += (first ? "" : indent) + c.usage + "\n";
        first = false;
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

std::string command_help(action act) {
    std::string text;
    if (const command* c = find_command(act)) {
        text = std::string("Usage: rdelta ") + c->usage + "\n\n" + c->what + ".\n\n";
        text[text.find("\n\n") + 2] = static_cast<char>(std::toupper(static_cast<unsigned char>(c->what[0])));
    }
    text += std::string("Options for ") + action_name(act) + ":\n";
    const option_table& t = option_table::get();
    for (const auto* section : {&t.general, &t.signature, &t.delta, &t.io, &t.extensions})
        for (const auto& d : section->options())
            if (option_commands(d->long_name()) & command_bit(act)) text += help_line(*d);
    return text;
}

std::string help_text(bool as_rdiff) {
    const option_table& t = option_table::get();
    std::string text = usage_lines(as_rdiff ? "rdiff" : "rdelta") + "\n";
    if (!as_rdiff) {
        text += "Commands (`rdelta help COMMAND' lists the options of one):\n";
        for (const command& c : command_table()) {
            std::string line = std::string("  ") + c.name;
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
