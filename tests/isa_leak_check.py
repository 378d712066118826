#!/usr/bin/env python3
"""isa_leak_check.py - fail if AVX2/AVX-512 code escaped the per-ISA kernels.

Usage: isa_leak_check.py [-v] BINARY_OR_ARCHIVE_OR_OBJECT...

Why: per-ISA translation units are compiled with -mavx2 / -mavx512*. Any inline
function or template instantiated there (std::min, our own header helpers) is
emitted as a weak symbol, and the linker may keep that AVX copy for the whole
program: baseline CPUs then die with SIGILL (HACKING.md, "SIMD kernels and dispatch").
Running the tests on a modern CPU cannot catch it, so we read the disassembly.

What counts as a post-baseline instruction (x86-64 baseline = SSE2):
  ymm, zmm            any %ymm / %zmm operand
  k-mask              any %k0-%k7 operand or {%kN} masking (AVX-512)
  evex-xmm            %xmm16-%xmm31 (AVX-512VL)
  vex                 a VEX/EVEX mnemonic (v...) on xmm registers, vzeroupper
                      (what -mavx2 makes of scalar float code or SSE4 intrinsics)
  bmi / popcnt        BMI1/BMI2 (shlx, rorx, andn, pdep, ...), popcnt, lzcnt
                      (-mbmi2 and -mavx2 hand these to plain integer code)
  (tzcnt is allowed: it is how objdump prints `rep bsf`, which GCC emits for
  the baseline as a bsf that newer CPUs run faster.)

Which functions may use them (anything else fails):
  1. The function's qualified name (demangled, parameter list removed) contains
     an ISA tag as a whole token: `avx2` or `avx512...`, delimited by anything but
     a letter or digit. So `rdelta::detail::md4_x8_avx2` and everything inside
     `namespace rdelta::detail::md4_avx2` (anonymous namespaces, clones such as
     `.constprop.0`) pass, while a weak `std::min<int>` or `rdelta::foo()` does not,
     even when that weak copy sits inside md4_avx2.cpp.o.
  2. A local (internal-linkage) function whose object file (archive member, e.g.
     `hash_md4_avx2.cpp.o`) or source file (the ELF FILE symbol that groups local
     symbols, e.g. `md4_avx2.cpp`, which survives linking) carries an ISA tag.
     Internal linkage means nothing outside that file can bind to it, so a plain
     `static` helper in a per-ISA file is fine; a weak or global one is not.

Clang's -fsanitize=function (part of UBSan for C++) starts every function with a
short jmp over 6 bytes of type data; objdump decodes that data as instructions
(a `blsr` now and then). Those bytes are skipped, and where the decoding ran past
them into the code, a linked program's function is decoded again from the jmp's
target.

Exit status: 0 clean, 1 leaks found, 2 usage or objdump error, 77 objdump missing
(meson's "skipped").
"""

import re
import shutil
import subprocess
import sys
from collections import Counter

ISA_TAG = re.compile(r"(?<![A-Za-z0-9])avx(?:2|512[A-Za-z0-9]*)(?![A-Za-z0-9])")

VMX = {"vmcall", "vmlaunch", "vmresume", "vmxoff", "vmxon", "vmread", "vmwrite",
       "vmptrld", "vmptrst", "vmclear", "vmfunc", "vmrun", "vmload", "vmsave",
       "vmmcall", "verr", "verw"}
SCALAR_EXT = {
    "andn": "bmi", "bextr": "bmi", "blsi": "bmi", "blsmsk": "bmi", "blsr": "bmi",
    "bzhi": "bmi", "mulx": "bmi", "pdep": "bmi", "pext": "bmi", "rorx": "bmi",
    "sarx": "bmi", "shlx": "bmi", "shrx": "bmi", "popcnt": "popcnt", "lzcnt": "lzcnt",
}
PREFIXES = {"lock", "rep", "repz", "repe", "repnz", "repne", "notrack", "bnd", "data16",
            "addr32", "cs", "ds", "es", "ss", "fs", "gs", "rex", "rex.W", "xacquire",
            "xrelease"}

RE_MEMBER = re.compile(r"^(\S.*?):\s+file format \S+")
RE_SECTION = re.compile(r"^Disassembly of section (\S+):")
RE_FUNC = re.compile(r"^([0-9a-f]+) <(.*)>:\s*$")
RE_INSN = re.compile(r"^\s+([0-9a-f]+):\s+(.*)$")
RE_JMP = re.compile(r"^jmp\s+([0-9a-f]+)\b")
SANITIZER_PROLOGUE = 16  # the most bytes a -fsanitize=function prologue jumps over
RE_SYM = re.compile(r"^([0-9a-f]+) (.{7}) (\S+)\s+([0-9a-f]+) (.*)$")
RE_KREG = re.compile(r"%k[0-7]\b")
RE_HIGH_XMM = re.compile(r"%xmm(?:1[6-9]|2[0-9]|3[01])\b")


def run_objdump(args, path):
    proc = subprocess.run(["objdump", *args, path], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(2)
    return proc.stdout


def classify(insn):
    """Reasons why one disassembled instruction is not baseline x86-64, or []."""
    tokens = insn.split(None, 1)
    while tokens and tokens[0] in PREFIXES:
        tokens = tokens[1].split(None, 1) if len(tokens) > 1 else []
    if not tokens:
        return []
    mnemonic = tokens[0]
    operands = tokens[1] if len(tokens) > 1 else ""
    operands = operands.split("#", 1)[0]  # drop objdump's "# <symbol>" comments
    reasons = []
    if "%ymm" in operands:
        reasons.append("ymm")
    if "%zmm" in operands:
        reasons.append("zmm")
    if RE_KREG.search(operands):
        reasons.append("k-mask")
    if RE_HIGH_XMM.search(operands):
        reasons.append("evex-xmm")
    if mnemonic.startswith("v") and mnemonic not in VMX and not reasons:
        if "%xmm" in operands or mnemonic in ("vzeroupper", "vzeroall"):
            reasons.append("vex")
    if mnemonic in SCALAR_EXT:
        reasons.append(SCALAR_EXT[mnemonic])
    return reasons


def qualified_name(demangled):
    """The demangled name without its parameter list (and clone suffix)."""
    name = demangled.replace("(anonymous namespace)", "{anon}")
    depth = 0
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">" and depth > 0:
            depth -= 1
        elif ch == "(" and depth == 0 and not name.startswith("operator", max(0, i - 8)):
            return name[:i]
    return name


def read_symbols(path):
    """(member, section, address, name) -> (binding, source file) from objdump -t."""
    symbols = {}
    member, source = path, ""
    for line in run_objdump(["-t", "-C", "-w"], path).splitlines():
        m = RE_MEMBER.match(line)
        if m:
            member, source = m.group(1), ""
            continue
        m = RE_SYM.match(line)
        if not m:
            continue
        value, flags, section, _size, name = m.groups()
        name = name.strip()  # linked binaries pad a version column before the name
        for prefix in (".hidden ", ".protected ", ".internal "):
            if name.startswith(prefix):
                name = name[len(prefix):]
        if flags[6] == "f" or (flags[5] == "d" and section == "*ABS*"):  # FILE symbol
            source = name
            continue
        if flags[6] != "F":
            continue
        binding = "weak" if flags[1] == "w" else {"l": "local", "g": "global", "u": "unique"}.get(
            flags[0], "global")
        symbols[(member, section, int(value, 16), name)] = (binding, source)
    return symbols


def disassemble(path, extra=()):
    """[member, section, address, name, Counter(reasons), first offending insn,
    where the code starts after a sanitizer prologue (or None)] per function."""
    functions = []
    member, section, first_insn = path, "", False
    for line in run_objdump(["-d", "-C", "-w", "--no-show-raw-insn", *extra], path).splitlines():
        m = RE_MEMBER.match(line)
        if m:
            member = m.group(1)
            continue
        m = RE_SECTION.match(line)
        if m:
            section = m.group(1)
            continue
        m = RE_FUNC.match(line)
        if m:
            functions.append([member, section, int(m.group(1), 16), m.group(2), Counter(), None, None])
            first_insn = True
            continue
        m = RE_INSN.match(line)
        if not (m and functions):
            continue
        f, at, insn = functions[-1], int(m.group(1), 16), m.group(2)
        if first_insn:
            first_insn = False
            jump = RE_JMP.match(insn.strip())
            if jump and at < int(jump.group(1), 16) <= at + SANITIZER_PROLOGUE:
                f[6] = int(jump.group(1), 16)
        if f[6] is not None and at < f[6]:
            continue  # the prologue's data
        reasons = classify(insn)
        if reasons:
            f[4].update(reasons)
            if f[5] is None:
                f[5] = insn.strip()
    return functions


def decode_again(path, functions):
    """A linked program's flagged functions with a sanitizer prologue, decoded from
    the jmp's target to the next function: the first decoding may have run from the
    prologue's data into the code out of step."""
    starts = sorted({f[2] for f in functions if f[0] == path})
    for f in functions:
        if f[0] != path or f[6] is None or not f[4]:
            continue
        later = [a for a in starts if a > f[2]]
        if not later:
            continue
        again = disassemble(path, [f"--start-address={f[6]:#x}", f"--stop-address={later[0]:#x}"])
        f[4], f[5] = Counter(), None
        for g in again:
            f[4].update(g[4])
            if f[5] is None:
                f[5] = g[5]


def check(path, verbose):
    symbols = read_symbols(path)
    functions = disassemble(path)
    decode_again(path, functions)

    passed = failed = users = 0
    for member, section, address, name, reasons, first, _code in functions:
        if not reasons:
            passed += 1
            continue
        users += 1
        binding, source = symbols.get((member, section, address, name), ("unknown", ""))
        member_base = member.rsplit("/", 1)[-1]
        if ISA_TAG.search(qualified_name(name)):
            why = "ISA-tagged name"
        elif binding == "local" and (ISA_TAG.search(member_base) or ISA_TAG.search(source)):
            why = "local symbol in ISA file " + (source or member_base)
        else:
            why = None
        summary = ", ".join(f"{r} x{n}" for r, n in sorted(reasons.items()))
        if why:
            passed += 1
            if verbose:
                print(f"ok    {member_base}: {name}  [{summary}]  ({why})")
        else:
            failed += 1
            where = source or member_base
            print(f"LEAK  {where}: {name}  [{binding} symbol; {summary}; first: {first}]")
    if not symbols:
        print(f"note: {path} has no symbol table (stripped?): only ISA-tagged names can pass")
    print(f"{path}: {len(functions)} functions, {users} use post-SSE2 instructions")
    return passed, failed


def main(argv):
    verbose = "-v" in argv
    paths = [a for a in argv if a != "-v"]
    if not paths:
        sys.stderr.write(__doc__)
        return 2
    if shutil.which("objdump") is None:
        print("objdump not found: skipped")
        return 77
    passed = failed = 0
    for path in paths:
        p, f = check(path, verbose)
        passed += p
        failed += f
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
