#!/usr/bin/env python3
"""Writes rdelta's bash completion from `rdelta --help` and `rdelta help COMMAND`,
which the CLI prints from its option table: the commands, each command's options,
which of them take a value, and the value lists of -H, -R and --kernel-copy.
Usage: gen_bash_completion.py RDELTA OUTPUT."""
import re
import subprocess
import sys

rdelta, output = sys.argv[1:3]


def run_help(*args):
    return subprocess.run([rdelta, *args], capture_output=True, text=True, check=True).stdout


help_text = run_help("--help")
section = help_text.split("\nCommands", 1)[1].split("\n\n", 1)[0]
commands = re.findall(r"^  ([a-z]+) ", section, re.M)
if not commands:
    sys.exit("no commands in rdelta --help")


file_valued = []  # options whose value is a FILE: files are offered after them


def options_of(text):
    """(flags, valued): option names; valued ones take a separate value word."""
    flags, valued = [], []
    for line in text.splitlines():
        m = re.match(r"\s+(?:-(\S), )?\s*--([a-z][a-z0-9-]*)(\[?=)?([A-Z]*)", line)
        if not m:
            continue
        short, long_name, value, metavar = m.groups()
        names = [f"--{long_name}"] + ([f"-{short}"] if short and short != "?" else [])
        # An optional value (--zstd[=LEVEL]) is attached, never a separate word.
        (valued if value == "=" else flags).extend(names)
        if value == "=" and metavar in ("FILE", "DIR", "SIG"):
            file_valued.extend(n for n in names if n not in file_valued)
    return flags, valued


flags, valued = options_of(help_text)
per_command = {c: options_of(run_help("help", c)) for c in commands}

# Options whose values are words to offer; each must still be in its help line.
value_words = {("-H", "--hash"): "blake2 md4", ("-R", "--rollsum"): "rabinkarp rollsum",
               ("--kernel-copy",): "auto always never"}
for names, words in value_words.items():
    line = next((l for l in help_text.splitlines() if re.search(rf"{names[-1]}=", l)), "")
    for w in words.split():
        if w not in line:
            sys.exit(f"{names[-1]}: '{w}' is not in its --help line: {line!r}")

prev_cases = "\n".join(f"        {'|'.join(names)}) COMPREPLY=($(compgen -W '{words}' -- \"$cur\")); return ;;"
                       for names, words in value_words.items())
listed = {n for names in value_words for n in names}
other_valued = "|".join(v for v in valued if v not in listed and v not in file_valued)
if not file_valued:
    sys.exit("no option takes a FILE in rdelta --help")
cur_cases = "\n".join(f"        {names[-1]}=*) COMPREPLY=($(compgen -W '{words}' -- \"${{cur#*=}}\")); return ;;"
                      for names, words in value_words.items())
command_cases = "\n".join(
    f"            {c}) options='{' '.join(sorted(set(f + v)))}' ;;" for c, (f, v) in per_command.items())

script = f"""# bash completion for rdelta (generated from `rdelta --help` and `rdelta help
# COMMAND` by src/cli/completion/gen_bash_completion.py; do not edit)
_rdelta() {{
    local cur prev words cword
    _init_completion -n = || return
    case $prev in
{prev_cases}
        {'|'.join(file_valued)}) _filedir; return ;;
        {other_valued}) return ;;
    esac
    case $cur in
{cur_cases}
    esac
    local i command=
    for ((i = 1; i < cword; i++)); do
        case ${{words[i]}} in {'|'.join(commands)}|help) command=${{words[i]}}; break ;; esac
    done
    if [[ $cur == -* ]]; then
        # Only the options of the command being typed (all of them before it).
        local options='{' '.join(sorted(set(flags + valued)))}'
        case $command in
{command_cases}
        esac
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        [[ ${{COMPREPLY-}} == *= ]] && compopt -o nospace
        return
    fi
    if [[ -z $command ]]; then
        COMPREPLY=($(compgen -W '{' '.join(commands)} help' -- "$cur"))
    elif [[ $command == help ]]; then
        COMPREPLY=($(compgen -W '{' '.join(commands)}' -- "$cur"))
    else
        _filedir
    fi
}}
complete -F _rdelta rdelta
"""
with open(output, "w") as f:
    f.write(script)
