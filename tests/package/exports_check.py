#!/usr/bin/env python3
"""librdelta.so exports its public API only (HACKING.md, "ABI"): every defined
dynamic symbol is in namespace rdelta (a function, a static member, a vtable or a
type_info) with the version node RDELTA_0, none is in rdelta::detail, none is the
standard library's (a template instantiation leaking out) or anyone else's.
Usage: exports_check.py LIBRARY. Prints 'N passed, M failed'; 77 (skipped) without nm."""
import re
import shutil
import subprocess
import sys

library = sys.argv[1]
if not shutil.which("nm"):
    print("nm not found (binutils)")
    sys.exit(77)


def symbols(demangle):
    out = subprocess.run(["nm", "-D", "--defined-only"] + (["-C"] if demangle else []) + [library],
                         capture_output=True, text=True, check=True).stdout
    # "ADDRESS TYPE NAME"; the name itself may hold spaces once demangled.
    return [line.split(" ", 2)[2] for line in out.splitlines() if line.count(" ") >= 2]


passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


mangled = symbols(False)
demangled = symbols(True)
check(len(mangled) == len(demangled), "nm and nm -C list different numbers of symbols")
# The version node itself is an absolute symbol named RDELTA_0.
check("RDELTA_0" in mangled, "no version node RDELTA_0 (src/librdelta.map not applied?)")
public = re.compile(r"^(?:_ZN|_ZNK|_ZTVN|_ZTIN|_ZTSN)6rdelta")
exported = [(m, d) for m, d in zip(mangled, demangled) if m != "RDELTA_0"]
check(len(exported) > 0, "no symbol exported at all")
for m, d in exported:
    name, _, version = m.partition("@@")
    check(version == "RDELTA_0", f"{d}: version node {version or '(none)'}, not RDELTA_0")
    check(public.match(name) is not None, f"{d}: not in namespace rdelta ({name})")
    check("rdelta::detail::" not in d.split("(")[0], f"{d}: rdelta::detail is internal")
    # A name (not an argument type) of the standard library's: an instantiation leaked.
    check(not re.match(r"^(?:(?:vtable|typeinfo|typeinfo name|VTT|guard variable) for )?(?:std|__gnu_cxx)::", d),
          f"{d}: the standard library's")
print(f"{len(exported)} symbols exported")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
