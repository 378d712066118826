#!/usr/bin/env python3
"""The man page documents every long option and every command of --help (and
benchmark's shortest abbreviation as the CLI takes it), and exactly the exit codes
the CLI can return (src/cli/exit_codes.hpp); the README's option table lists every
rdelta option of --help and nothing --help does not know.
Usage: man_check.py RDELTA MAN_PAGE EXIT_CODES_HPP README. Prints 'N passed, M failed'."""
import re
import subprocess
import sys

rdelta, man_page, exit_codes_hpp, readme_path = sys.argv[1:5]
man = open(man_page).read().replace("\\-", "-")
help_text = subprocess.run([rdelta, "--help"], capture_output=True, text=True, check=True).stdout
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)
    return ok


long_options = sorted(set(re.findall(r"(--[a-z][a-z-]*)", help_text)))
check(len(long_options) >= 15, f"expected many long options in --help, got {long_options}")
for opt in long_options:
    check(opt in man, f"{opt} is in --help but not in the man page")

# Every command of `rdelta help` is described, and the shortest abbreviation the
# man page gives for benchmark is the CLI's.
description = man.split(".SH DESCRIPTION", 1)[1].split(".SH ", 1)[0]
listed = re.findall(r"^  ([a-z]+) ", help_text.split("\nCommands", 1)[-1].split("\n\n", 1)[0], re.M)
check(len(listed) >= 6, f"--help lists the commands: {listed}")
for command in listed + ["help"]:
    check(f"\\fB{command}\\fR" in description, f"the command {command} is not described in the man page")
short = re.search(r"abbreviated, it needs at least \\fB(\w+)\\fR", description)
if check(short is not None, "the man page says how far benchmark may be abbreviated"):
    def help_status(word):
        return subprocess.run([rdelta, "help", word], capture_output=True).returncode
    prefix = short.group(1)
    check(help_status(prefix) == 0 and help_status(prefix[:-1]) != 0,
          f"benchmark's shortest abbreviation is {prefix!r} in the man page, not in the CLI")

section = man.split(".SH EXIT STATUS", 1)[1].split(".SH ", 1)[0]
documented = set(int(c) for c in re.findall(r"^\.B (\d+)$", section, re.M))
names = re.findall(r"errc::(\w+)", open(exit_codes_hpp).read().split("documented_exit_codes", 1)[1])
values = {"io_error": 100, "syntax_error": 101, "mem_error": 102, "input_ended": 103, "bad_magic": 104,
          "unimplemented": 105, "corrupt": 106, "internal_error": 107, "param_error": 108}
code_set = {values[n] for n in names} | {0}
check(documented == code_set, f"EXIT STATUS documents {sorted(documented)}, the code returns {sorted(code_set)}")
readme = open(readme_path).read()
table = readme.split("rdelta adds:", 1)[1].split("\n\n", 2)[1]
in_table = set(re.findall(r"`(--[a-z][a-z-]*)", table))
ours = set(re.findall(r"(--[a-z][a-z-]*)", help_text.split("rdelta options:", 1)[1]))
for opt in sorted(ours):
    check(opt in in_table, f"{opt} is in --help but not in the README's option table")
for opt in sorted(in_table):
    check(opt in long_options, f"{opt} is in the README's option table but not in --help")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
