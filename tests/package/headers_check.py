#!/usr/bin/env python3
"""Every public header compiles on its own, and documents each declaration it adds
(a comment line right above every function, class, struct, enum and alias); the
sources that discard results compile cleanly under Debian's hardening flags.
Usage: headers_check.py INCLUDE_DIR BUILD_INCLUDE_DIR COMPILER... Prints 'N passed, M failed'."""
import glob
import os
import re
import subprocess
import sys
import tempfile

include_dir, build_include = sys.argv[1], sys.argv[2]
compiler = sys.argv[3:]
passed = failed = 0
headers = sorted(glob.glob(os.path.join(include_dir, "rdelta", "*.hpp")))
with tempfile.TemporaryDirectory() as tmp:
    for header in headers:
        name = os.path.basename(header)
        src = os.path.join(tmp, name + ".cpp")
        with open(src, "w") as f:
            f.write(f"#include <rdelta/{name}>\nint main() {{ return 0; }}\n")
        r = subprocess.run(compiler + ["-std=c++20", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                                       "-I", include_dir, "-I", build_include, src], capture_output=True, text=True)
        if r.returncode == 0:
            passed += 1
        else:
            failed += 1
            print(f"FAIL: {name} does not compile on its own:\n{r.stderr}")
        # Documentation: every type and alias definition has a comment right above it
        # (forward declarations excepted).
        lines = open(header).read().splitlines()
        definition = re.compile(
            r"^\s*(?:(?:class|struct|enum class) (?:RDELTA_API )?\w+(?:\s*:[^;]*)?\s*\{|(?:class|struct) (?:RDELTA_API )?\w+ final|using \w+ =)")
        for i, line in enumerate(lines):
            if not definition.match(line):
                continue
            above = lines[i - 1].strip() if i else ""
            documented = above.startswith("//") or above.endswith("*/") or above.startswith("template")
            if documented:
                passed += 1
            else:
                failed += 1
                print(f"FAIL: {name}:{i + 1}: undocumented: {line.strip()}")

# Sources that discard a result on purpose compile without warnings under Debian's
# hardening flags (dpkg-buildflags: -O2 -D_FORTIFY_SOURCE=2; -O1 is enough), where glibc marks
# ftruncate, write and the like warn_unused_result and a cast to void does not
# silence it.
src_dir = os.path.join(os.path.dirname(os.path.abspath(include_dir)), "src")
discarding = sorted(f for f in glob.glob(os.path.join(src_dir, "**", "*.cpp"), recursive=True)
                    if re.search(r"\(void\)\s*::", open(f).read()))
jobs = [(f, subprocess.Popen(compiler + ["-std=c++20", "-O1", "-D_FORTIFY_SOURCE=2", "-Werror=unused-result", "-c",
                                         "-o", os.devnull, "-I", include_dir, "-I", build_include, "-I", src_dir, f],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)) for f in discarding]
for f, job in jobs:
    out = job.communicate()[0]
    if job.returncode == 0:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {os.path.relpath(f, src_dir)} under -D_FORTIFY_SOURCE=2:\n{out}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
