#!/usr/bin/env python3
"""librdelta.so's ABI against the committed baseline (abi/librdelta.so.0.abi),
with libabigail's abidiff; HACKING.md, "ABI", says when and how the baseline changes.

Only the public types count (those of include/rdelta/: --headers-dir, and private
types dropped). The check fails on any change but added functions and variables:
abidiff's "incompatible change" bit (8: a symbol removed, which is also a C++
function whose parameters changed) and its "ABI change" bit (4) once additions are
left out (a public struct or class laid out differently, a virtual function added
or moved, a return type changed). Added symbols are compatible and pass, with a
note: the baseline can then be brought up to date on purpose.

Usage: abi_check.py check|update BASELINE SUPPRESSIONS LIBRARY HEADERS_DIR...
check prints abidiff's report and exits 0 (compatible), 1 (not) or 77 (skipped:
libabigail not installed, or a library without debug information to read types
from); update writes BASELINE from LIBRARY with abidw."""
import shutil
import subprocess
import sys

mode, baseline, suppressions, library, headers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
tool = "abidw" if mode == "update" else "abidiff"
if not shutil.which(tool):
    print(f"{tool} not found (Debian: apt-get install abigail-tools)")
    sys.exit(77)
# The types come from DWARF: src/meson.build compiles the library with -g.
sections = subprocess.run(["readelf", "-S", "-W", library], capture_output=True, text=True).stdout
if ".debug_info" not in sections:
    print(f"{library} has no debug information (stripped?): its types cannot be compared")
    sys.exit(77)

# Only the public headers' types (SUPPRESSIONS: abi/librdelta.suppr says why).
header_args = [arg for h in headers for arg in ("--headers-dir" if mode == "update" else "--hd2", h)]
header_args += ["--suppressions", suppressions]
if mode == "update":
    # No paths of this machine in the file, so that it only changes with the ABI
    # (the headers' paths stay as the compiler saw them, relative to the build).
    r = subprocess.run(["abidw", "--drop-private-types", "--no-corpus-path", "--no-comp-dir-path", "--type-id-style",
                        "hash", "--out-file", baseline] + header_args + [library])
    sys.exit(r.returncode)

ERROR, USAGE_ERROR, ABI_CHANGE, INCOMPATIBLE = 1, 2, 4, 8
common = ["abidiff", "--drop-private-types", "--no-show-locs"] + header_args


def abidiff(extra):
    r = subprocess.run(common + extra + [baseline, library], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


status, report = abidiff(["--no-added-syms"])
if status & (ERROR | USAGE_ERROR):
    print(report)
    print(f"FAIL: abidiff could not compare (exit status {status})")
    sys.exit(1)
if status & (ABI_CHANGE | INCOMPATIBLE):
    print(report)
    kind = "an incompatible ABI change" if status & INCOMPATIBLE else "an ABI change"
    print(f"FAIL: librdelta.so has {kind} against {baseline} (abidiff exit status {status}).\n"
          "Undo it, or make it on purpose: change the SONAME and update the baseline (HACKING.md, \"ABI\").")
    sys.exit(1)
status, report = abidiff([])
if status & ABI_CHANGE:
    print(report)
    print(f"note: only additions (compatible); `ninja -C BUILD abi-baseline` records them in {baseline}")
print("1 passed, 0 failed")
