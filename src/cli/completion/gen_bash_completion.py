#!/usr/bin/env python3
"""Writes rdelta's bash completion from `rdelta --help`, which the CLI prints from
its option table: options, which of them take a value, the commands, and value
lists for -H and -R. Usage: gen_bash_completion.py RDELTA OUTPUT."""
import re
import subprocess
import sys

rdelta, output = sys.argv[1:3]
help_text = subprocess.run([rdelta, "--help"], capture_output=True, text=True, check=True).stdout
usage = help_text.split("\n\n", 1)[0]
commands = sorted(set(re.findall(r"(?:\[OPTIONS\] |^\s+)([a-z]+)(?= |$)", usage, re.M)))
flags, valued = [], []
for line in help_text.splitlines():
    m = re.match(r"\s+(?:-(\S), )?\s*--([a-z][a-z0-9-]*)(\[?=)?", line)
    if not m:
        continue
    short, long_name, value = m.groups()
    names = [f"--{long_name}"] + ([f"-{short}"] if short and short != "?" else [])
    # An optional value (--zstd[=LEVEL]) is attached, never a separate word.
    (valued if value == "=" else flags).extend(names)

script = f"""# bash completion for rdelta (generated from `rdelta --help` by
# src/cli/completion/gen_bash_completion.py; do not edit)
_rdelta() {{
    local cur prev words cword
    _init_completion -n = || return
    case $prev in
        -H|--hash) COMPREPLY=($(compgen -W 'blake2 md4' -- "$cur")); return ;;
        -R|--rollsum) COMPREPLY=($(compgen -W 'rabinkarp rollsum' -- "$cur")); return ;;
        {'|'.join(v for v in valued if v not in ('-H', '--hash', '-R', '--rollsum'))}) return ;;
    esac
    case $cur in
        --hash=*|--rollsum=*)
            local values='blake2 md4'
            [[ $cur == --rollsum=* ]] && values='rabinkarp rollsum'
            COMPREPLY=($(compgen -W "$values" -- "${{cur#*=}}")); return ;;
        -*)
            COMPREPLY=($(compgen -W '{' '.join(sorted(set(flags + valued)))}' -- "$cur"))
            [[ ${{COMPREPLY-}} == *= ]] && compopt -o nospace
            return ;;
    esac
    local i command=
    for ((i = 1; i < cword; i++)); do
        case ${{words[i]}} in {'|'.join(commands)}) command=${{words[i]}}; break ;; esac
    done
    if [[ -z $command ]]; then
        COMPREPLY=($(compgen -W '{' '.join(commands)}' -- "$cur"))
    else
        _filedir
    fi
}}
complete -F _rdelta rdelta
"""
with open(output, "w") as f:
    f.write(script)
