#!/usr/bin/env python3
"""The layers of src/ (HACKING.md, "Layers"; the order is tests/layers_check.py's)
as the linker sees them: every symbol an object file of folder A uses from another
object file must be defined in A or a folder below it. Include lines alone miss a
declaration written by hand, a template that calls upward, or a function declared
in one folder and defined in another; the object files' defined and undefined
symbols (`nm`) do not.
Usage: symbol_layers_check.py LAYERS_CHECK_PY BUILD_SRC_DIR (the library's object
folders, librdelta*.p, are found there). Prints 'N passed, M failed'."""
import os
import re
import subprocess
import sys


def layer_order(layers_check):
    text = open(layers_check).read()
    listed = re.search(r"ORDER = \[(.*?)\]", text, re.S).group(1)
    return re.findall(r'"([a-z]+)"', listed)


def symbols(obj):
    """The strong global symbols `obj` defines, and those it uses undefined."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBR":  # weak (W, V: inline and template code) and local symbols prove nothing
            defined.add(name)
    return defined, used


def inversions(objects, rank):
    """(object, symbol, its folder, the folder defining it) for every upward use."""
    owner = {}
    for obj, (folder, defined, _) in objects.items():
        for s in defined:
            owner.setdefault(s, folder)
    found = []
    for obj, (folder, _, used) in objects.items():
        for s in sorted(used):
            there = owner.get(s)
            if there and there != folder and rank[there] > rank[folder]:
                found.append((obj, s, folder, there))
    return found


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
    return out.splitlines()


def main():
    order = layer_order(sys.argv[1])
    rank = {name: i for i, name in enumerate(order)}
    passed = failed = 0
    # A planted inversion is found, a downward use is not.
    planted = {"a.o": ("core", set(), {"_Z2upv"}), "b.o": ("inplace", {"_Z2upv"}, {"_Z4downv"}),
               "c.o": ("core", {"_Z4downv"}, set())}
    if [(o, s) for o, s, _, _ in inversions(planted, rank)] == [("a.o", "_Z2upv")]:
        passed += 1
    else:
        failed += 1
        print("FAIL: the check does not find a planted inversion")
    objects = {}
    build = sys.argv[2]
    dirs = [os.path.join(build, d) for d in sorted(os.listdir(build)) if d.startswith("librdelta") and d.endswith(".p")]
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".o"):
                continue
            folder = name.split("_", 1)[0]
            if folder not in rank:
                continue
            defined, used = symbols(os.path.join(d, name))
            objects[os.path.join(os.path.basename(d), name)] = (folder, defined, used)
    if not objects:
        print("FAIL: no object files found")
        return 1
    found = inversions(objects, rank)
    names = demangle([s for _, s, _, _ in found])
    for (obj, _, folder, there), name in zip(found, names):
        failed += 1
        print(f"FAIL: {obj} ({folder}/) uses {name}, defined in {there}/, a layer above it")
    passed += sum(len(u) for _, _, u in objects.values()) - len(found)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
