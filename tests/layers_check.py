#!/usr/bin/env python3
"""The folders of src/ form one-way layers: a file includes only from its own folder
and the folders below it (HACKING.md, "Layers"). A new upward include fails here, as
does a unit test outside the tests/unit folder that mirrors its src/ folder.
Usage: layers_check.py SRC_DIR. Prints 'N passed, M failed'."""
import os
import re
import sys

# Lowest first. A folder may include from the folders before it.
ORDER = ["core", "cpu", "checksum", "format", "match", "signature", "delta", "patch", "compress", "fs", "inplace", "file",
         "history", "capi", "cli"]
rank = {name: i for i, name in enumerate(ORDER)}
src = sys.argv[1]
passed = failed = 0
folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
for d in folders:
    if d not in rank:
        failed += 1
        print(f"FAIL: src/{d} has no place in the layer order of tests/layers_check.py")
for root, _, files in os.walk(src):
    here = os.path.relpath(root, src).split(os.sep)[0]
    if here not in rank:
        continue
    for name in sorted(files):
        if not name.endswith((".cpp", ".hpp", ".inc", ".h")):
            continue
        path = os.path.join(root, name)
        for n, line in enumerate(open(path, errors="replace"), 1):
            m = re.match(r'\s*#\s*include\s+"([a-z_]+)/', line)
            if not m or m.group(1) == here or m.group(1) not in rank:
                continue
            if rank[m.group(1)] < rank[here]:
                passed += 1
            else:
                failed += 1
                print(f"FAIL: {os.path.relpath(path, src)}:{n} includes {m.group(1)}/ from {here}/, a layer above it")
# The unit tests mirror the tree: tests/unit/FOLDER tests src/FOLDER (api: the public API).
unit = os.path.join(src, os.pardir, "tests", "unit")
for d in sorted(os.listdir(unit)):
    if not os.path.isdir(os.path.join(unit, d)):
        if d.startswith("test_") and d.endswith(".cpp") and d != "test_main.cpp":
            failed += 1
            print(f"FAIL: tests/unit/{d} belongs in the folder of the src/ folder it tests")
    elif d == "api" or d in folders:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: tests/unit/{d}/ mirrors no folder of src/")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
