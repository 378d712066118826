#!/usr/bin/env python3
"""Compare the C API round trip on our librsync.so.2 with Debian's librsync 2.3.2.

    compare.py --ours EXE --reference EXE --rdiff /usr/bin/rdiff --ours-lib LIB [--workdir DIR]

Both EXEs are tests/capi/roundtrip.c, linked to our library and to Debian's. ldd
must show each loading the library it is meant to; our library must have the soname
librsync.so.2 and export exactly Debian's symbols. Each program checks itself; then
every file the two write must be identical (log lines of the hash-table probe count
"weak sum compares", which librsync's table layout decides, are masked; the call
traces of deltas may differ as RELAXED_TRACE says, keeping what a client sees), and each
signature and delta listed in the manifest must equal what /usr/bin/rdiff (on
Debian's library) makes from the same inputs. Last, Debian's rdiff is run on both
libraries for -s statistics and error cases: exit code, stderr (up to timings and
that probe count) and output must be the same.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

failures = 0


def fail(text):
    global failures
    failures += 1
    print(f"FAIL {text}", flush=True)


def clean_env():
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("LD_PRELOAD", None)
    return env


def loaded_librsync(exe):
    out = subprocess.run(["ldd", exe], capture_output=True, text=True, env=clean_env()).stdout
    m = re.search(r"librsync\.so\.2 => (\S+)", out)
    return os.path.realpath(m.group(1)) if m else None


def normalize(name, data):
    if name == "utils.txt":
        # rs_librsync_version names the library (checked in main()).
        data = re.sub(rb"^version (librsync 2\.3\.2|rdelta [0-9.]+) ", b"version V ", data, flags=re.M)
    if name == "log.txt":
        # Probe counts depend on librsync's hash-table layout; ours differ by design.
        data = re.sub(rb"\d+ \(\d+\.\d+x\) weak sum compares", b"N (x) weak sum compares", data)
    return data


def parse_trace(data):
    """A call trace of roundtrip.c as [(consumed, produced, result)] per call, and
    the total output line."""
    calls, total = [], None
    for line in data.decode().splitlines():
        if line.startswith("output "):
            total = line
            continue
        span, _, consumed, _, produced, result = line.split(" ", 5)
        first, _, last = span.partition("-")
        calls += [(int(consumed), int(produced), result)] * (int(last or first) - int(first) + 1)
    return calls, total


# The call traces that may differ from librsync's call by call: a delta's with a
# signature (not the slack delta's, trace-delta-slack-...) fed more than a block per
# call. librsync's scan stops at the first command whose output does not fit and
# scans the rest of the input it took on later calls; ours scans all the input it
# takes at once (stopping where librsync does would take a scan call per byte). With
# several blocks per call and an output window smaller than a command, librsync's
# queue therefore empties, and it takes the next input, on other calls than ours.
# What a client notices stays: on every call where librsync takes or gives bytes
# ours does too, our output is never behind librsync's, and the job ends no later.
RELAXED_TRACE = re.compile(r"trace-delta-(?:md4|blake2)-\w+-b(\d+)-i(\d+)-o\d+\.txt")


def trace_is_relaxed(name):
    m = RELAXED_TRACE.fullmatch(name)
    return bool(m) and int(m.group(2)) > int(m.group(1))


def relaxed_trace_failure(name, debian, ours):
    """Why the trace `ours` is not as good as `debian` for a client, or None."""
    (d_calls, d_total), (o_calls, o_total) = parse_trace(debian), parse_trace(ours)
    if d_total != o_total:
        return f"{o_total} on ours, {d_total} on Debian's"
    if not d_calls or not o_calls or d_calls[-1][2] != "DONE" or o_calls[-1][2] != "DONE":
        return "a job did not end with DONE"
    if len(o_calls) > len(d_calls):
        return f"ours ends on call {len(o_calls)}, Debian's on call {len(d_calls)}"
    d_out = o_out = 0
    for i, (d, o) in enumerate(zip(d_calls, o_calls), 1):
        d_out, o_out = d_out + d[1], o_out + o[1]
        if o_out < d_out:
            return f"call {i}: ours has given {o_out} bytes, Debian's {d_out}"
        if (d[0] or d[1]) and not (o[0] or o[1]):
            return f"call {i}: ours took and gave nothing, Debian's took {d[0]} and gave {d[1]} bytes"
        if o[2] not in ("BLOCKED", "DONE"):
            return f"call {i}: ours returned {o[2]}"
    return None


def mask_timing(data):
    data = re.sub(rb"\(\d+\.\d MB/s\)", b"(x MB/s)", data)
    return re.sub(rb"\d+ sec\]", b"N sec]", data)


def rdiff_cases(d):
    """rdiff command lines (run in directory d) whose exit code, stderr and output
    must be the same on both libraries: -s statistics and every kind of error."""
    def put(name, data):
        (d / name).write_bytes(data)
    put("basis", (d / "../ours/random").read_bytes())
    put("new", (d / "../ours/random.new").read_bytes())
    put("small", b"hello world\n")
    hdr = bytes.fromhex("72730147 00000100 00000020".replace(" ", ""))
    put("sig-short", hdr[:6])
    put("sig-block0", hdr[:4] + bytes(4) + hdr[8:])
    put("sig-strong33", hdr[:8] + bytes.fromhex("00000021"))
    put("sig-magic", bytes.fromhex("72730148") + hdr[4:])
    put("sig-md4-17", bytes.fromhex("72730146") + hdr[4:8] + bytes.fromhex("00000011"))
    put("sig-trunc", hdr + b"\1\2\3\4\5")
    put("sig-empty", hdr)
    d_magic = bytes.fromhex("72730236")
    put("d-magic", bytes.fromhex("7273023700"))
    put("d-noend", d_magic + b"\x02ab")
    put("d-bogus", d_magic + b"\x55\x00")
    put("d-lit0", d_magic + b"\x41\x00\x00")
    put("d-littrunc", d_magic + b"\x05ab")
    put("d-copy0", d_magic + b"\x45\x00\x00\x00")
    put("d-copyneg", d_magic + b"\x51" + b"\xff" * 8 + b"\x01\x00")
    put("d-pastend", d_magic + b"\x47\x00\x00\x04\x00\x00\x00")
    put("d-big", d_magic + b"\x47\x00\x00\x03\x0d\x40" + b"\x47\x00\x0f\xff\xff\x00\x00")
    (d / "adir").mkdir(exist_ok=True)
    put("exists", b"x")
    return [
        "-s -f signature basis o-sig", "-s -f -H md4 -R rollsum -b 100 -S 5 signature basis o-sig-md4",
        "-s -f signature small o-sig-small", "-f -S 2 signature basis o-sig-weak", "-f -S 40 signature basis o",
        "-f -H md4 -S 17 signature basis o", "-f signature adir o", "-f -b 1000000000 signature basis o",
        "-f -I 7 -O 13 signature basis o-sig-io", "-s -f delta o-sig new o-delta", "-s -f delta sig-empty new o-slack",
        "-f -I 100 delta sig-empty new o-slack-I", "-s -f patch basis o-delta o-new", "-f patch basis d-big o-big",
        "-f delta sig-short new o", "-f delta sig-block0 new o", "-f delta sig-strong33 new o",
        "-f delta sig-magic new o", "-f delta sig-md4-17 new o", "-f delta sig-trunc new o",
        "-f delta o-delta new o", "-s -f patch basis d-magic o", "-s -f patch basis d-noend o",
        "-f patch basis d-bogus o", "-f patch basis d-lit0 o", "-f patch basis d-littrunc o",
        "-f patch basis d-copy0 o", "-f patch basis d-copyneg o", "-s -f patch small d-pastend o",
        "-f patch missing d-magic o", "signature basis exists", "-f patch basis adir o", "-v -f signature small o",
    ]


def compare_rdiff_runs(root, rdiff, ours_libdir):
    """Debian's rdiff on each library: same exit code, stderr and output file."""
    d = root / "rdiff-runs"
    d.mkdir(exist_ok=True)
    cases = rdiff_cases(d)
    for case in cases:
        results = []
        for lib in (None, ours_libdir):
            env = clean_env()
            if lib:
                env["LD_LIBRARY_PATH"] = lib
            words = case.split()
            out = d / words[-1]
            if out.name.startswith("o") and out.exists():
                out.unlink()
            p = subprocess.run([rdiff] + words, cwd=d, capture_output=True, env=env)
            data = out.read_bytes() if out.name.startswith("o") and out.is_file() else None
            err = normalize("log.txt", mask_timing(p.stderr))
            results.append((p.returncode, err, data))
        (rc0, err0, out0), (rc1, err1, out1) = results
        if rc0 != rc1:
            fail(f"rdiff {case}: exit {rc1} on our library, {rc0} on Debian's; stderr {err1[-300:]!r}")
        elif err0 != err1:
            fail(f"rdiff {case}: stderr differs\n  debian: {err0!r}\n  ours:   {err1!r}")
        elif out0 != out1:
            fail(f"rdiff {case}: output differs")
    return len(cases)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    ap.add_argument("--ours-lib", required=True, help="our librsync.so.2.3.2 (to check ldd)")
    ap.add_argument("--workdir")
    ap.add_argument("--sanitized", action="store_true",
                    help="our library is a sanitizer build: rs_librsync_version carries the sanitizer's redzone, "
                         "and Debian's rdiff, built without the sanitizers, cannot load it")
    args = ap.parse_args()

    ours_lib = os.path.realpath(args.ours_lib)
    got = loaded_librsync(args.ours)
    if got != ours_lib:
        fail(f"{args.ours} loads {got}, not our {ours_lib}")
    ref_lib = loaded_librsync(args.reference)
    if ref_lib is None or ref_lib == ours_lib or not ref_lib.startswith(("/usr/lib", "/lib")):
        fail(f"{args.reference} loads {ref_lib}, not Debian's librsync")
    if failures:
        return 1
    soname = subprocess.run(["readelf", "-d", ours_lib], capture_output=True, text=True).stdout
    if "Library soname: [librsync.so.2]" not in soname:
        fail(f"{ours_lib} does not have the soname librsync.so.2")
    exported = {}
    for tag, lib in (("ours", ours_lib), ("debian", ref_lib)):
        nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True).stdout
        exported[tag] = sorted(line.split()[-1] for line in nm.splitlines() if line.strip())
    if exported["ours"] != exported["debian"]:
        fail(f"exported symbols differ: ours only {sorted(set(exported['ours']) - set(exported['debian']))}, "
             f"Debian's only {sorted(set(exported['debian']) - set(exported['ours']))}")

    root = Path(args.workdir or tempfile.mkdtemp(prefix="capi-"))
    dirs = {}
    for tag, exe in (("ours", args.ours), ("debian", args.reference)):
        d = root / tag
        d.mkdir(parents=True, exist_ok=True)
        extra = ["--ours-only"] if tag == "ours" else []
        p = subprocess.run([exe, str(d)] + extra, capture_output=True, text=True, env=clean_env())
        if p.returncode != 0:
            fail(f"{tag} round trip exited {p.returncode}:\n{p.stderr[-3000:]}")
        dirs[tag] = d
    if failures:
        return 1

    # rs_librsync_version: rdelta's name and version in our library, librsync's in
    # Debian's, the array the same 15 bytes (programs hold a copy relocation of it).
    versions = {tag: re.search(rb"^version (.*) md4len", (dirs[tag] / "utils.txt").read_bytes(), re.M)
                for tag in dirs}
    if not (versions["debian"] and versions["debian"].group(1) == b"librsync 2.3.2"
            and versions["ours"] and re.fullmatch(rb"rdelta [0-9]+\.[0-9]+\.[0-9]+", versions["ours"].group(1))):
        fail(f"rs_librsync_version: {versions['ours'] and versions['ours'].group(1)!r} on ours, "
             f"{versions['debian'] and versions['debian'].group(1)!r} on Debian's")
    sizes = {}
    for tag, lib in (("ours", args.ours_lib), ("debian", loaded_librsync(args.reference))):
        table = subprocess.run(["nm", "-D", "-S", "--defined-only", lib or "/nonexistent"], capture_output=True,
                               text=True).stdout
        sizes[tag] = re.findall(r"^\S+ (\S+) \S+ rs_librsync_version$", table, re.M)
    if not args.sanitized and (not sizes["ours"] or sizes["ours"] != sizes["debian"]):
        fail(f"rs_librsync_version's size: {sizes['ours']} on ours, {sizes['debian']} on Debian's")

    names = sorted(f.name for f in dirs["debian"].iterdir())
    ours_names = sorted(f.name for f in dirs["ours"].iterdir())
    if names != ours_names:
        fail(f"file sets differ: {sorted(set(names) ^ set(ours_names))}")
    compared = relaxed = 0
    for name in names:
        if name not in ours_names:
            continue
        a = normalize(name, (dirs["debian"] / name).read_bytes())
        b = normalize(name, (dirs["ours"] / name).read_bytes())
        compared += 1
        if a != b and trace_is_relaxed(name):
            relaxed += 1
            why = relaxed_trace_failure(name, a, b)
            if why:
                fail(f"{name}: {why}")
        elif a != b:
            if name.endswith(".txt"):
                al, bl = a.splitlines(), b.splitlines()
                i = next((k for k in range(min(len(al), len(bl))) if al[k] != bl[k]), min(len(al), len(bl)))
                fail(f"{name} differs at line {i + 1}:\n  debian: {al[i] if i < len(al) else '<end>'!r}\n"
                     f"  ours:   {bl[i] if i < len(bl) else '<end>'!r}")
            else:
                fail(f"{name} differs ({len(a)} vs {len(b)} bytes)")

    # rdiff (on Debian's library) from the same inputs.
    rdiff_runs = 0
    ours = dirs["ours"]
    rd = root / "rdiff"
    rd.mkdir(exist_ok=True)
    for line in (ours / "manifest.txt").read_text().splitlines():
        words = line.split()
        action, out_name = words[0], words[1]
        n_in = 1 if action == "signature" else 2
        inputs, opts = words[2:2 + n_in], words[2 + n_in:]
        argv = [args.rdiff, "-f"] + opts + [action] + [str(ours / i) for i in inputs] + [str(rd / out_name)]
        p = subprocess.run(argv, capture_output=True, env=clean_env())
        rdiff_runs += 1
        if p.returncode != 0:
            fail(f"{' '.join(argv)} exited {p.returncode}: {p.stderr[-500:]!r}")
            continue
        if (rd / out_name).read_bytes() != (ours / out_name).read_bytes():
            fail(f"{out_name} differs from rdiff's ({' '.join(argv)})")

    rdiff_cases_run = 0 if args.sanitized else compare_rdiff_runs(root, args.rdiff, os.path.dirname(ours_lib))

    print(f"same {len(exported['ours'])} exported symbols as Debian's librsync.so.2; "
          f"compared {compared} files with Debian's library ({relaxed} delta call traces that differ only as "
          f"RELAXED_TRACE allows), {rdiff_runs} outputs with rdiff, "
          f"{rdiff_cases_run} rdiff runs (exit code, stderr, output) on both libraries; "
          f"{failures} failures", flush=True)
    if failures:
        print(f"kept {root}", flush=True)
        return 1
    if not args.workdir:
        shutil.rmtree(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
