#!/usr/bin/env python3
"""The nightly VM-image workflow on a 16 GiB sparse image with scattered changes:
signature, delta, patch (out of place, sparse output), verified deltas that Debian's
rdiff still applies, --nocache, block-device-like size handling of sparse input, and
a signature identical to rdiff's on a smaller sparse image.
Usage: vm_workflow_test.py --rdelta PATH [--rdiff /usr/bin/rdiff] [--size-gib 16]
Prints 'N passed, M failed'."""
import argparse
import filecmp
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, flush=True)


def run(cmd, **kw):
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, **kw)
    return r, time.monotonic() - t0


def make_sparse(path, size, regions, rng):
    """A sparse file of `size` bytes with random data written at `regions` (offset, length)."""
    with open(path, "wb") as f:
        f.truncate(size)
        for off, length in regions:
            f.seek(off)
            f.write(rng.randbytes(length))


def disk_usage(path):
    return os.stat(path).st_blocks * 512


def same_sparse(a, b, regions):
    """Compare two sparse files by the regions that can differ plus a few samples of holes."""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        if os.path.getsize(a) != os.path.getsize(b):
            return False
        for off, length in regions:
            fa.seek(off), fb.seek(off)
            if fa.read(length) != fb.read(length):
                return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    ap.add_argument("--size-gib", type=int, default=16)
    args = ap.parse_args()
    rdelta = os.path.abspath(args.rdelta)
    rng = random.Random(7)
    work = tempfile.mkdtemp(prefix="rdelta-vm-")
    try:
        os.chdir(work)
        size = args.size_gib << 30
        data = [(g << 30, 8 << 20) for g in range(0, args.size_gib, 3)] + [(size - (1 << 20), 1 << 20)]
        make_sparse("old.img", size, data, rng)
        make_sparse("new.img", size, [], rng)  # same data regions as old.img, copied below
        with open("old.img", "rb") as src, open("new.img", "r+b") as dst:
            for off, length in data:
                src.seek(off), dst.seek(off)
                dst.write(src.read(length))
        # Scattered 4 KiB changes, some inside data, some inside holes.
        changes = [(rng.randrange(0, size - 4096) & ~4095, 4096) for _ in range(20)]
        changes += [(off + 12345, 4096) for off, _ in data[:3]]
        with open("new.img", "r+b") as f:
            for off, length in changes:
                f.seek(off)
                f.write(rng.randbytes(length))
        check(disk_usage("old.img") < size // 50, "the test image is not sparse")

        r, t_sig = run([rdelta, "signature", "old.img", "old.sig"])
        check(r.returncode == 0, f"signature failed: {r.stderr!r}")
        r, t_delta = run([rdelta, "-s", "--checksum", "delta", "old.sig", "new.img", "new.delta"])
        check(r.returncode == 0, f"delta failed: {r.stderr!r}")
        # Holes are not read: the bytes read are about the data, not the 16 GiB.
        m = re.search(rb"read (\d+\.\d) MiB", r.stderr)
        read_mib = float(m.group(1)) if m else -1.0
        check(0 < read_mib < 1024, f"delta read {read_mib} MiB of a sparse image with ~50 MiB of data")
        r, t_patch = run([rdelta, "--verify", "patch", "old.img", "new.delta", "out.img"])
        check(r.returncode == 0 and b"verified" in r.stderr, f"patch --verify failed: {r.stderr!r}")
        regions = data + changes
        check(same_sparse("out.img", "new.img", regions), "patched image differs from the new image")
        check(disk_usage("out.img") < disk_usage("new.img") + (64 << 20),
              f"patched image is not sparse: {disk_usage('out.img')} bytes on disk")
        print(f"{args.size_gib} GiB sparse image: signature {t_sig:.2f} s, delta {t_delta:.2f} s, "
              f"patch {t_patch:.2f} s; delta read {read_mib} MiB; du new {disk_usage('new.img') >> 20} MiB, "
              f"patched {disk_usage('out.img') >> 20} MiB; delta {os.path.getsize('new.delta')} bytes")

        # In place: a delta made --in-place-safe updates the image itself, writing
        # only what changed; an ordinary delta of the same files is refused untouched
        # when it would read overwritten data (here it can: only overwrites happened).
        r, t_safe = run([rdelta, "--in-place-safe", "--checksum", "delta", "old.sig", "new.img", "safe.delta"])
        check(r.returncode == 0, f"delta --in-place-safe failed: {r.stderr!r}")
        subprocess.run(["cp", "--sparse=always", "old.img", "inplace.img"], check=True)
        r, t_inplace = run([rdelta, "--in-place", "--verify", "patch", "inplace.img", "safe.delta"])
        check(r.returncode == 0 and b"verified" in r.stderr, f"patch --in-place failed: {r.stderr!r}")
        check(same_sparse("inplace.img", "new.img", regions), "in-place result differs from the new image")
        check(disk_usage("inplace.img") < disk_usage("new.img") + (64 << 20),
              f"in-place patch filled holes: {disk_usage('inplace.img')} bytes on disk")
        print(f"in place: delta --in-place-safe {t_safe:.2f} s, patch --in-place {t_inplace:.2f} s")
        os.remove("inplace.img")

        # --no-sparse writes the zeros.
        small = 64 << 20
        make_sparse("small.img", small, [(0, 1 << 20)], rng)
        subprocess.run([rdelta, "signature", "small.img", "small.sig"], check=True)
        subprocess.run([rdelta, "delta", "small.sig", "small.img", "small.delta"], check=True)
        subprocess.run([rdelta, "--no-sparse", "patch", "small.img", "small.delta", "dense.img"], check=True)
        check(disk_usage("dense.img") >= small, "--no-sparse still wrote holes")
        check(filecmp.cmp("dense.img", "small.img", shallow=False), "--no-sparse output differs")

        # A wrong basis fails the checksum: exit 106 and no output file.
        with open("small.img", "r+b") as f:
            f.seek(5000)
            f.write(b"changed")
        r, _ = run([rdelta, "--checksum", "delta", "small.sig", "small.img", "ck.delta"])
        shutil.copyfile("dense.img", "wrong.img")  # dense.img is the unchanged original
        with open("wrong.img", "r+b") as f:
            f.seek(1 << 19)
            f.write(b"not the basis")
        r, _ = run([rdelta, "patch", "wrong.img", "ck.delta", "bad.img"])
        check(r.returncode == 106 and not os.path.exists("bad.img"),
              f"checksum mismatch: exit {r.returncode}, output left: {os.path.exists('bad.img')}")
        # Debian's rdiff ignores the trailer and applies the delta.
        if os.path.exists(args.rdiff):
            r, _ = run([args.rdiff, "patch", "dense.img", "ck.delta", "by-rdiff.img"])
            check(r.returncode == 0 and filecmp.cmp("by-rdiff.img", "small.img", shallow=False),
                  f"rdiff could not apply a --checksum delta: {r.stderr!r}")
            # An --in-place-safe delta is an ordinary delta for rdiff.
            with open("small.img", "r+b") as f:
                f.seek(0)
                f.write(b"front")
            subprocess.run([rdelta, "--in-place-safe", "delta", "small.sig", "small.img", "safe-small.delta"], check=True)
            r, _ = run([args.rdiff, "patch", "dense.img", "safe-small.delta", "by-rdiff2.img"])
            check(r.returncode == 0 and filecmp.cmp("by-rdiff2.img", "small.img", shallow=False),
                  f"rdiff could not apply an --in-place-safe delta: {r.stderr!r}")
            # Inserted bytes make an ordinary delta unsafe in place: refused, file untouched.
            with open("shifted.img", "wb") as f:
                f.write(b"ins" + open("dense.img", "rb").read())
            subprocess.run([rdelta, "delta", "small.sig", "shifted.img", "shift.delta"], check=True)
            shutil.copyfile("dense.img", "victim.img")
            r, _ = run([rdelta, "--in-place", "patch", "victim.img", "shift.delta"])
            check(r.returncode == 108 and filecmp.cmp("victim.img", "dense.img", shallow=False),
                  f"unsafe in-place patch: exit {r.returncode}")
            # And on a sparse input rdelta's signature equals rdiff's.
            make_sparse("mid.img", 256 << 20, [(0, 1 << 20), (100 << 20, 3 << 20), ((256 << 20) - 5000, 5000)], rng)
            subprocess.run([rdelta, "signature", "mid.img", "mid.rdelta.sig"], check=True)
            subprocess.run([args.rdiff, "signature", "mid.img", "mid.rdiff.sig"], check=True)
            check(filecmp.cmp("mid.rdelta.sig", "mid.rdiff.sig", shallow=False),
                  "signature of a sparse file differs from rdiff's")
            # Deltas of sparse new files (holes not read) equal rdiff's: against a basis
            # with zero blocks (zero windows match) and one without (zeros become literals),
            # with holes at the start, in the middle and at the end.
            make_sparse("mid2.img", (256 << 20) + 777, [(3 << 20, 1 << 20), (100 << 20, 1 << 20),
                                                        ((100 << 20) + 12345, 4096)], rng)
            with open("mid.img", "rb") as src, open("mid2.img", "r+b") as dst:
                dst.seek(100 << 20)
                src.seek(100 << 20)
                dst.write(src.read(512 << 10))
            make_sparse("dense-small.img", 8 << 20, [(0, 8 << 20)], rng)
            for basis in ("mid.img", "dense-small.img"):
                for opts in ([], ["-H", "md4", "-R", "rollsum", "-b", "4096"]):
                    subprocess.run([args.rdiff, "-f", *opts, "signature", basis, "b.sig"], check=True)
                    r1, t_ours = run([rdelta, "delta", "--no-checksum", "b.sig", "mid2.img", "mid2.rdelta.delta"])
                    r2, t_rdiff = run([args.rdiff, "delta", "b.sig", "mid2.img", "mid2.rdiff.delta"])
                    check(r1.returncode == 0 and r2.returncode == 0 and
                          filecmp.cmp("mid2.rdelta.delta", "mid2.rdiff.delta", shallow=False),
                          f"delta of a sparse file against {basis} {opts} differs from rdiff's")
                    print(f"sparse 256 MiB delta against {basis} {' '.join(opts)}: rdelta {t_ours:.2f} s, "
                          f"rdiff {t_rdiff:.2f} s, delta {os.path.getsize('mid2.rdiff.delta')} bytes")
                    os.remove("mid2.rdelta.delta"), os.remove("mid2.rdiff.delta")

        # --nocache leaves (almost) nothing of the input in the page cache.
        if shutil.which("fincore"):
            with open("dense.bin", "wb") as f:
                for _ in range(64):
                    f.write(rng.randbytes(1 << 20))
            subprocess.run(["cat", "dense.bin"], stdout=subprocess.DEVNULL, check=True)
            subprocess.run([rdelta, "--nocache", "signature", "dense.bin", "dense.sig"], check=True)
            res = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", "dense.bin"],
                                 capture_output=True, text=True)
            cached = int(res.stdout.split()[0]) if res.returncode == 0 and res.stdout.strip() else -1
            check(0 <= cached <= (4 << 20), f"--nocache left {cached} bytes of the input cached")
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
