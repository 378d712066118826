#!/usr/bin/env python3
"""Each public header's code lives in one folder of src/ (HACKING.md, "Layers").

    header_folders_check.py LIBRARY OBJECT_DIR INCLUDE_DIR...

For every symbol librdelta.so exports, the object that defines it names its folder
(meson names objects FOLDER_FILE.cpp.o) and the public header that declares it is
found by name: a member's class (`class NAME {` or `struct NAME :`), else a
function (`NAME(` outside comments). A header whose symbols come from two folders
fails, as does an exported symbol no public header declares. A planted case is
checked first, so that a check which finds nothing cannot pass.
Prints 'N passed, M failed'.
"""
import collections
import os
import re
import subprocess
import sys


def read_headers(dirs):
    headers = {}
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith(".hpp"):
                with open(os.path.join(d, name)) as f:
                    headers[name] = re.sub(r"//[^\n]*", "", f.read())
    return headers


def declaring_headers(headers, owner, member):
    if member:
        kind = r"\b(class|struct)\s+(RDELTA_API\s+)?" + re.escape(owner) + r"\b\s*(final\s*)?[:{]"
        found = [h for h, text in headers.items() if re.search(kind, text)]
        if found:
            return found
    return [h for h, text in headers.items() if re.search(r"\b" + re.escape(owner) + r"\s*\(", text)]


def nm(*args):
    return subprocess.check_output(["nm", *args], text=True).splitlines()


def exported_code(library, object_dir):
    """(folder, demangled name) of each exported function, from the object defining it."""
    exported = {line.split()[-1].split("@")[0] for line in nm("-D", "--defined-only", library)}
    for obj in sorted(os.listdir(object_dir)):
        if not obj.endswith(".o"):
            continue
        folder = obj.split("_")[0]
        path = os.path.join(object_dir, obj)
        for raw, shown in zip(nm("--defined-only", path), nm("--defined-only", "-C", path)):
            fields = raw.split(" ", 2)
            if len(fields) == 3 and fields[1] in "TW" and fields[2] in exported:
                yield folder, shown.split(" ", 2)[2]


def folders_by_header(headers, code):
    by_header = collections.defaultdict(lambda: collections.defaultdict(set))
    undeclared = set()
    for folder, name in code:
        m = re.match(r"rdelta::(?!detail::)([A-Za-z_0-9]+)(?:::([A-Za-z_0-9~]+))?", name)
        if not m:
            continue
        found = declaring_headers(headers, m.group(1), m.group(2))
        if not found:
            undeclared.add(name)
        for h in found:
            by_header[h][folder].add(name.split("(")[0])
    return by_header, undeclared


def split_headers(by_header):
    """Lines naming each header whose code is in more than one folder."""
    out = []
    for header in sorted(by_header):
        folders = by_header[header]
        if len(folders) > 1:
            main = max(folders, key=lambda f: len(folders[f]))
            for f in sorted(set(folders) - {main}):
                out.append(f"rdelta/{header} is {main}/'s, but {f}/ defines {', '.join(sorted(folders[f]))}")
    return out


def main():
    library, object_dir, include_dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    passed = failed = 0
    planted_headers = {"a.hpp": "class RDELTA_API widget {\n void turn();\n};\nRDELTA_API void spin(int);\n"}
    planted, _ = folders_by_header(planted_headers, [("core", "rdelta::widget::turn()"), ("fs", "rdelta::spin(int)")])
    if len(split_headers(planted)) == 1:
        passed += 1
    else:
        failed += 1
        print("FAIL: a header whose code is in two folders goes unnoticed")
    by_header, undeclared = folders_by_header(read_headers(include_dirs), exported_code(library, object_dir))
    if len(by_header) < 10:
        failed += 1
        print(f"FAIL: only {len(by_header)} public headers matched the exported symbols")
    for line in split_headers(by_header):
        failed += 1
        print("FAIL: " + line)
    for name in sorted(undeclared):
        failed += 1
        print(f"FAIL: {name} is exported, but no public header declares it")
    passed += sum(1 for folders in by_header.values() if len(folders) == 1)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
