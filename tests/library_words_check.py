#!/usr/bin/env python3
"""The library's messages state facts; only the tool (src/cli) and the C API
(src/capi) speak of the tool's options and commands. Fails on a string literal in
src/ outside those two folders that names one of rdelta's long options (from
`rdelta --help`) or says `rdelta COMMAND`; the library names a remedy instead
(rdelta/error.hpp, error::fix) and the tool words it.
Usage: library_words_check.py SRC_DIR RDELTA. Prints 'N passed, M failed'."""
import os
import re
import subprocess
import sys

LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def tool_words(rdelta):
    text = subprocess.run([rdelta, "--help"], capture_output=True, text=True).stdout
    options = sorted(set(re.findall(r"--([a-z][a-z0-9-]+)", text)), key=len, reverse=True)
    commands = re.findall(r"^  ([a-z]+) ", text.split("\nCommands", 1)[-1], re.M)
    return options, commands


def offending(literal, options, commands):
    if re.search(r"(?<![\w-])--(" + "|".join(map(re.escape, options)) + r")(?![\w-])", literal):
        return "names an option of the tool"
    if re.search(r"\brdelta (" + "|".join(commands) + r")\b", literal):
        return "names a command of the tool"
    return None


def main():
    src, rdelta = sys.argv[1], sys.argv[2]
    options, commands = tool_words(rdelta)
    passed = failed = 0
    # The check must see what it is for: planted literals are caught, plain ones are not.
    for planted, bad in (('"cannot create it (--no-journal patches without one)"', True),
                         ('"; run `rdelta recover` on the file"', True),
                         ('"put back a copy (cp --remove-destination COPY FILE)"', False),
                         ('"not a journal rdelta made"', False)):
        got = offending(LITERAL.search(planted).group(1), options, commands) is not None
        if got == bad:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: the check misjudges {planted}")
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        if rel.split(os.sep)[0] in ("cli", "capi"):
            continue
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".inc")):
                continue
            path = os.path.join(root, name)
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                code = line.split("//", 1)[0] if not line.lstrip().startswith('"') else line
                for m in LITERAL.finditer(code):
                    why = offending(m.group(1), options, commands)
                    if why:
                        failed += 1
                        print(f"FAIL: {os.path.relpath(path, src)}:{n} {why}: \"{m.group(1)}\"")
                    else:
                        passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
