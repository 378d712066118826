#!/usr/bin/env python3
"""rdelta's compressed signatures and deltas (-z/--gzip, -i/--bzip2, --zstd).

    compression_test.py --rdelta PATH [--rdiff /usr/bin/rdiff] [--keep DIR]

Checked, for gzip, bzip2 and zstd:
  * `signature` and `delta` with a compression option write a stream that the system
    tool (gzip -dc, bzip2 -dc, zstd -dc) decompresses to exactly rdiff's uncompressed
    output for the same inputs, at several levels (the level shows in the header where
    the format records it; deltas made with --no-checksum, since by default they end
    with a checksum trailer inside the compressed stream);
  * `delta` reads a compressed signature and `patch` (also --in-place) a compressed
    delta, made by rdelta or by the system tool, with results identical to the
    uncompressed path; standard input and output ("-") work compressed;
  * truncated and corrupt compressed inputs fail with one stderr line naming the file
    and the documented status (103, 106), leaving no output or temporary file;
  * bad levels and `patch -z` are usage errors (101); under the name rdiff the options
    are unknown (101), as in Debian's rdiff.
Prints `FAIL [check] ...` per failed check and finally `N passed, M failed`.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

USAGE, ENDED, CORRUPT = 101, 103, 106
MAGIC = {"gzip": b"\x1f\x8b", "bzip2": b"BZh", "zstd": b"\x28\xb5\x2f\xfd"}
# (options, level recorded in the header or None): gzip's XFL byte says 4 for level 1,
# 2 for level 9; bzip2's fourth byte is the level digit; zstd does not record it.
LEVELS = {
    "gzip": [(["-z"], None), (["-z1"], ("xfl", 4)), (["--gzip=9"], ("xfl", 2))],
    "bzip2": [(["-i"], ("bzh", 9)), (["-i1"], ("bzh", 1)), (["--bzip2=5"], ("bzh", 5))],
    "zstd": [(["--zstd"], None), (["--zstd=1"], None), (["--zstd=19"], None)],
}
OPTION = {"gzip": "-z", "bzip2": "-i", "zstd": "--zstd"}


class Checker:
    def __init__(self, rdelta, rdiff, root):
        self.rdelta, self.rdiff, self.root = rdelta, rdiff, root
        self.passed = self.failed = 0
        bindir = root / "bin"
        bindir.mkdir()
        self.as_rdiff = bindir / "rdiff"
        os.symlink(rdelta, self.as_rdiff)

    def check(self, ok, name, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL [{name}] {detail}", flush=True)
        return ok

    def run(self, args, cwd, stdin=None, program=None):
        p = subprocess.run([str(program or self.rdelta)] + [str(a) for a in args], cwd=cwd,
                           input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                           capture_output=True, timeout=300)
        return p.returncode, p.stdout, p.stderr

    def expect_ok(self, name, args, cwd, stdin=None):
        rc, out, err = self.run(args, cwd, stdin)
        self.check(rc == 0, name, f"exit {rc}: {err[-300:]!r} :: rdelta {' '.join(map(str, args))}")
        return out

    def expect_failure(self, name, args, cwd, status, names=(), usage=False, stdin=None):
        """Exit `status`, one stderr line naming one of `names`, the directory unchanged."""
        before = listing(cwd)
        rc, _, err = self.run(args, cwd, stdin)
        what = f":: rdelta {' '.join(map(str, args))}"
        self.check(rc == status, name, f"exit {rc}, expected {status}: {err!r} {what}")
        lines = err.decode(errors="replace").rstrip("\n").split("\n")
        if not usage:
            self.check(len(lines) == 1 and lines[0], name, f"error is not one line: {err!r} {what}")
        if names:
            self.check(any(str(n) in lines[0] for n in names), name,
                       f"error does not name {list(names)}: {err!r} {what}")
        after = listing(cwd)
        self.check(after == before, name, f"directory changed: {sorted(set(after) ^ set(before))} {what}")
        return err


def listing(d):
    """Every file under d with its content, temporary files included."""
    return {p.name: p.read_bytes() for p in Path(d).iterdir() if p.is_file()}


def tool(codec, args, data):
    """Run the system gzip/bzip2/zstd on `data` (-c or -dc); its stdout, None if it fails."""
    if data is None:
        return None
    p = subprocess.run([codec, "-q", *args], input=data, capture_output=True)
    return p.stdout if p.returncode == 0 else None


def content(path):
    """A file's bytes, None when it does not exist (a failed run leaves none)."""
    return path.read_bytes() if path.exists() else None


def make_inputs(d):
    rng = random.Random(20240611)
    basis = b"".join(f"{i:07d} {rng.random():.12f} {'abcdefgh' * (i % 5)}\n".encode()
                     for i in range(25000))
    new = bytearray(basis)
    for _ in range(40):  # scattered edits, insertions and deletions
        at = rng.randrange(len(new) - 2000)
        kind = rng.randrange(3)
        if kind == 0:
            new[at:at + 100] = rng.randbytes(100)
        elif kind == 1:
            new[at:at] = rng.randbytes(rng.randrange(1, 3000))
        else:
            del new[at:at + rng.randrange(1, 1500)]
    (d / "basis").write_bytes(basis)
    (d / "new").write_bytes(bytes(new))
    return basis, bytes(new)


def header_level(data, kind):
    return data[8] if kind == "xfl" else data[3] - ord("0")


def check_outputs(c, d, ref_sig, ref_delta):
    """signature and delta compress their output: the system tool reads it back to rdiff's bytes."""
    for codec, cases in LEVELS.items():
        for opts, level in cases:
            tag = f"{codec} {' '.join(opts)}"
            for what, args, ref in (("signature", ["signature", *opts, "basis"], ref_sig),
                                    ("delta", ["delta", "--no-checksum", *opts, "ref.sig", "new"], ref_delta)):
                out_name = f"{what}.{codec}"
                c.expect_ok(f"{what} {tag}", ["-f", *args, out_name], d)
                packed = content(d / out_name) or b""
                c.check(packed.startswith(MAGIC[codec]), f"{what} {tag}", f"no {codec} magic: {packed[:8]!r}")
                plain = tool(codec, ["-dc"], packed)
                if not c.check(plain == ref, f"{what} {tag}", f"{codec} -dc fails or differs from rdiff's output"):
                    continue
                if level:
                    got = header_level(packed, level[0])
                    c.check(got == level[1], f"{what} {tag}", f"header records level {got}, expected {level[1]}")


def check_inputs(c, d, basis, new, ref_sig, ref_delta):
    """delta and patch read compressed inputs, made by rdelta or by the system tool."""
    safe = c.expect_ok("delta --in-place-safe", ["delta", "--in-place-safe", "ref.sig", "new"], d)
    for codec, opt in OPTION.items():
        c.expect_ok(f"make {codec} signature", ["-f", "signature", opt, "basis", f"sig.{codec}"], d)
        c.expect_ok(f"make {codec} delta", ["-f", "delta", opt, "ref.sig", "new", f"delta.{codec}"], d)
        c.expect_ok(f"make {codec} in-place delta",
                    ["-f", "delta", "--in-place-safe", opt, "ref.sig", "new", f"safe.{codec}"], d)
        (d / f"sys-sig.{codec}").write_bytes(tool(codec, ["-c"], ref_sig))
        (d / f"sys-delta.{codec}").write_bytes(tool(codec, ["-c"], ref_delta))
        (d / f"sys-safe.{codec}").write_bytes(tool(codec, ["-c"], safe))
        for maker, prefix in (("rdelta", ""), (codec, "sys-")):
            tag = f"{codec} by {maker}"
            c.expect_ok(f"delta reads {tag} signature",
                        ["-f", "delta", "--no-checksum", f"{prefix}sig.{codec}", "new", "out"], d)
            c.check(content(d / "out") == ref_delta, f"delta reads {tag} signature",
                    "delta differs from rdiff's")
            c.expect_ok(f"patch reads {tag} delta", ["-f", "patch", "basis", f"{prefix}delta.{codec}", "out"], d)
            c.check(content(d / "out") == new, f"patch reads {tag} delta", "result differs from NEWFILE")
            (d / "image").write_bytes(basis)
            c.expect_ok(f"patch --in-place reads {tag} delta",
                        ["patch", "--in-place", "image", f"{prefix}safe.{codec}"], d)
            c.check(content(d / "image") == new, f"patch --in-place reads {tag} delta",
                    "image differs from NEWFILE")
        # NEWFILE and BASIS are data: a compressed one is not decompressed.
        (d / "new.gz").write_bytes(tool("gzip", ["-c"], new))
        c.expect_ok(f"delta keeps {codec} NEWFILE as it is", ["-f", "delta", f"sig.{codec}", "new.gz", "out"], d)
        c.expect_ok("patch with that delta", ["-f", "patch", "basis", "out", "out2"], d)
        c.check(content(d / "out2") == content(d / "new.gz"), f"delta keeps {codec} NEWFILE",
                "the compressed NEWFILE was not treated as plain data")
        for p in ("out", "out2", "image", "new.gz"):
            (d / p).unlink(missing_ok=True)


def check_pipes(c, d, basis, new, ref_sig, ref_delta):
    """'-' for standard input and output, compressed both ways."""
    # A piped basis has no size, so rdiff picks its stream block length.
    piped_sig = subprocess.run([c.rdiff, "signature", "-", "-"], input=basis, capture_output=True,
                               check=True).stdout
    out = c.expect_ok("signature -z - -", ["signature", "-z", "-", "-"], d, stdin=basis)
    c.check(out.startswith(MAGIC["gzip"]) and tool("gzip", ["-dc"], out) == piped_sig, "signature -z - -",
            "stdout is not rdiff's signature gzipped")
    out = c.expect_ok("delta --zstd - new -", ["delta", "--no-checksum", "--zstd", "-", "new", "-"], d,
                      stdin=tool("bzip2", ["-c"], ref_sig))
    c.check(out.startswith(MAGIC["zstd"]) and tool("zstd", ["-dc"], out) == ref_delta, "delta --zstd - new -",
            "stdout is not rdiff's delta in zstd")
    out = c.expect_ok("delta -i sig new (stdout)", ["delta", "--no-checksum", "-i", "ref.sig", "new"], d)
    c.check(tool("bzip2", ["-dc"], out) == ref_delta, "delta -i sig new (stdout)", "stdout differs")
    out = c.expect_ok("patch basis - - (zstd stdin)", ["patch", "basis", "-", "-"], d,
                      stdin=tool("zstd", ["-c"], ref_delta))
    c.check(out == new, "patch basis - - (zstd stdin)", "stdout differs from NEWFILE")
    (d / "image").write_bytes(basis)
    safe = c.expect_ok("delta --in-place-safe", ["delta", "--in-place-safe", "ref.sig", "new"], d)
    c.expect_ok("patch --in-place image - (gzip stdin)", ["patch", "--in-place", "image", "-"], d,
                stdin=tool("gzip", ["-c"], safe))
    c.check(content(d / "image") == new, "patch --in-place image - (gzip stdin)", "image differs")
    (d / "image").unlink(missing_ok=True)


def check_extras(c, d, new, ref_delta):
    """--checksum (the default) goes inside the compressed stream; -s still reports."""
    plain = c.expect_ok("delta --checksum", ["delta", "--checksum", "ref.sig", "new"], d)
    c.check(c.expect_ok("delta", ["delta", "ref.sig", "new"], d) == plain, "delta",
            "the default delta is not the --checksum delta")
    c.expect_ok("delta --checksum -i", ["-f", "delta", "--checksum", "-i", "ref.sig", "new", "ck.bz2"], d)
    c.check(tool("bzip2", ["-dc"], content(d / "ck.bz2")) == plain, "delta --checksum -i",
            "the trailer is not inside the compressed stream")
    c.check(plain[:len(ref_delta)] == ref_delta and plain[len(ref_delta):len(ref_delta) + 4] == b"rdcm",
            "delta --checksum -i", "uncompressed --checksum delta is not rdiff's delta plus a trailer")
    rc, _, err = c.run(["-f", "patch", "--verify", "basis", "ck.bz2", "out"], d)
    c.check(rc == 0 and b"verified" in err and content(d / "out") == new, "patch --verify of ck.bz2",
            f"exit {rc}: {err!r}")
    rc, _, err = c.run(["-f", "-s", "delta", "--no-checksum", "--zstd", "ref.sig", "new", "out"], d)
    c.check(rc == 0 and b"librsync: delta statistics:" in err and tool("zstd", ["-dc"], content(d / "out"))
            == ref_delta, "-s delta --zstd", f"exit {rc}: {err!r}")
    for p in ("ck.bz2", "out"):
        (d / p).unlink(missing_ok=True)
    # What the README says: rdiff cannot read a compressed delta.
    (d / "delta.gz").write_bytes(tool("gzip", ["-c"], ref_delta))
    rc, _, _ = c.run(["patch", "basis", "delta.gz", "out"], d, program=c.rdiff)
    c.check(rc != 0, "rdiff refuses a compressed delta", f"rdiff exited {rc}")
    for p in ("delta.gz", "out"):
        (d / p).unlink(missing_ok=True)


def damaged(codec, ref):
    """(name, bytes, expected status) of broken compressed streams of `ref`."""
    ours = tool(codec, ["-c"], ref)
    cases = [("cut-half", ours[:len(ours) // 2], ENDED), ("cut-last-byte", ours[:-1], ENDED),
             # a gzip header cut short reads as a bad header; bzip2 and zstd know it ended
             ("magic-only", MAGIC[codec], CORRUPT if codec == "gzip" else ENDED)]
    bad = bytearray(ours)  # the zstd tool writes a checksum, so any flipped data byte shows
    mid = len(bad) // 2
    bad[mid:mid + 4] = bytes(b ^ 0xFF for b in bad[mid:mid + 4])
    cases.append(("flipped", bytes(bad), CORRUPT))
    cases.append(("trailing-garbage", ours + b"garbage!", CORRUPT))
    return cases


def check_damage(c, d, basis, ref_sig, ref_delta):
    """Truncated and corrupt compressed inputs: documented status, one line, nothing written."""
    (d / "image").write_bytes(basis)
    for codec in MAGIC:
        for kind, ref, tail in (("signature", ref_sig, ["new", "out"]), ("delta", ref_delta, None)):
            for case, data, status in damaged(codec, ref):
                name = f"bad.{codec}"
                (d / name).write_bytes(data)
                tag = f"{kind} {codec} {case}"
                # A corrupt stream may also be caught by the signature/delta parser (106).
                if kind == "signature":
                    c.expect_failure(f"delta with {tag}", ["delta", name, *tail], d, status, names=[name])
                else:
                    c.expect_failure(f"patch with {tag}", ["patch", "basis", name, "out"], d, status, names=[name])
                    c.expect_failure(f"patch --in-place with {tag}", ["patch", "--in-place", "image", name], d,
                                     status, names=[name])
                    c.expect_failure(f"patch from stdin with {tag}", ["patch", "basis", "-", "out"], d, status,
                                     names=["standard input"], stdin=data)
                (d / name).unlink(missing_ok=True)
    c.check(content(d / "image") == basis, "damaged deltas leave the image alone", "image changed")
    (d / "image").unlink(missing_ok=True)


def check_usage(c, d):
    for args in (["-z0"], ["-z10"], ["--gzip=x"], ["-i0"], ["--bzip2=10"], ["--zstd=0"], ["--zstd=23"],
                 ["--gzip="]):
        err = c.expect_failure(f"bad level {args[0]}", ["signature", *args, "basis", "out"], d, USAGE, usage=True)
        c.check(args[0].encode() in err, f"bad level {args[0]}", f"message does not name {args[0]}: {err!r}")
    c.expect_failure("patch -z", ["patch", "-z", "basis", "ref.delta", "out"], d, USAGE, usage=True)
    c.expect_failure("patch --zstd --in-place", ["patch", "--zstd", "--in-place", "basis", "ref.delta"], d,
                     USAGE, usage=True)
    for opt in ("-z", "-z9", "-i", "--gzip", "--bzip2=9", "--zstd"):
        before = listing(d)
        rc, _, err = c.run([opt, "signature", "basis", "out"], d, program=c.as_rdiff)
        c.check(rc == USAGE and f"rdiff: unknown option: {opt}".encode() in err, f"as rdiff: {opt}",
                f"exit {rc}: {err!r}")
        c.check(listing(d) == before, f"as rdiff: {opt}", "directory changed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    ap.add_argument("--keep", help="work in this directory and keep it")
    args = ap.parse_args()
    rdelta = os.path.abspath(shutil.which(args.rdelta) or args.rdelta)
    rdiff = os.path.abspath(shutil.which(args.rdiff) or args.rdiff)
    missing = [t for t in (rdelta, rdiff, *MAGIC) if not shutil.which(t)]
    if missing:
        sys.exit(f"missing programs: {missing} (Debian packages gzip, bzip2, zstd, rdiff)")
    root = Path(args.keep or tempfile.mkdtemp(prefix="rdelta-compression-")).resolve()
    if args.keep:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
    d = root / "work"
    d.mkdir()
    basis, new = make_inputs(d)
    subprocess.run([rdiff, "signature", "basis", "ref.sig"], cwd=d, check=True)
    subprocess.run([rdiff, "delta", "ref.sig", "new", "ref.delta"], cwd=d, check=True)
    ref_sig, ref_delta = content(d / "ref.sig"), content(d / "ref.delta")

    c = Checker(rdelta, rdiff, root)
    c.expect_ok("uncompressed signature", ["signature", "basis", "plain.sig"], d)
    c.check(content(d / "plain.sig") == ref_sig, "uncompressed signature", "differs from rdiff's")
    (d / "plain.sig").unlink(missing_ok=True)
    check_outputs(c, d, ref_sig, ref_delta)
    check_inputs(c, d, basis, new, ref_sig, ref_delta)
    check_pipes(c, d, basis, new, ref_sig, ref_delta)
    check_extras(c, d, new, ref_delta)
    for p in d.glob("*.*"):
        if p.name not in ("ref.sig", "ref.delta"):
            p.unlink(missing_ok=True)
    check_damage(c, d, basis, ref_sig, ref_delta)
    check_usage(c, d)

    if not args.keep and c.failed == 0:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{c.passed} passed, {c.failed} failed" + ("" if c.failed == 0 else f" (files in {root})"))
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
