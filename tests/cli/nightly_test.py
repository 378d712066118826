#!/usr/bin/env python3
"""The nightly job's one read: `delta --new-signature FILE` writes the new file's
signature from the read that makes the delta, byte for byte what `rdelta
signature` makes with the same parameters, for every format, for sparse files,
dense files and pipes, compressed or not; the delta itself does not change; a
failed run publishes neither; the option belongs to delta alone.
Usage: nightly_test.py --rdelta PATH. Prints 'N passed, M failed'."""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

from tally import check, summary

MiB = 1 << 20

FORMATS = [  # (signature options, label)
    ((), "blake2 rabinkarp"),
    (("-H", "md4"), "md4 rabinkarp"),
    (("-R", "rollsum"), "blake2 rollsum"),
    (("-H", "md4", "-R", "rollsum", "-S", "8"), "md4 rollsum -S 8"),
    (("-b", "1000", "-S", "12"), "blake2 -b 1000 -S 12"),
    (("-b", "65536"), "blake2 -b 65536"),
]


def run(rdelta, *args, stdin=None):
    return subprocess.run([rdelta, *args], capture_output=True, stdin=stdin)


def content(path):
    with open(path, "rb") as f:
        return f.read()


def make_files(rng):
    """A sparse image and its next day, and a small dense pair (an odd size)."""
    with open("old.img", "wb") as f:
        f.truncate(96 * MiB)
        for at in (3 * MiB, 40 * MiB + 123, 90 * MiB):
            f.seek(at)
            f.write(rng.randbytes(2 * MiB))
    with open("old.img", "rb") as f:
        data = bytearray(f.read())
    for _ in range(30):
        at = rng.randrange(len(data) - 5000)
        data[at:at + 4096] = rng.randbytes(4096)
    data += rng.randbytes(777)
    with open("new.img", "wb") as f:  # sparse again where it holds zeros
        for at in range(0, len(data), MiB):
            piece = data[at:at + MiB]
            if piece.count(0) == len(piece) and len(piece) == MiB:
                f.seek(at + MiB)
            else:
                f.seek(at)
                f.write(piece)
        f.truncate(len(data))
    with open("old.small", "wb") as f:
        f.write(rng.randbytes(300001))
    with open("new.small", "wb") as f:
        f.write(content("old.small")[:100000] + rng.randbytes(5000) + content("old.small")[150000:])


def formats(rdelta):
    for old, new in (("old.img", "new.img"), ("old.small", "new.small")):
        for opts, label in FORMATS:
            what = f"{label}, {new}"
            r = run(rdelta, "signature", "-f", *opts, old, "old.sig")
            if not check(r.returncode == 0, f"{what}: signature of the basis ({r.stderr!r})"):
                continue
            # The basis signature's parameters: its block length may not be the one
            # `rdelta signature` recommends for the new file's size.
            header = content("old.sig")[:12]
            block, strong = int.from_bytes(header[4:8], "big"), int.from_bytes(header[8:12], "big")
            run(rdelta, "signature", "-f", *opts, "-b", str(block), "-S", str(strong), new, "want.sig")
            r = run(rdelta, "delta", "-f", "--new-signature", "got.sig", "old.sig", new, "with.delta")
            check(r.returncode == 0 and content("got.sig") == content("want.sig"),
                  f"{what}: --new-signature equals the signature of the new file ({r.stderr!r})")
            run(rdelta, "delta", "-f", "old.sig", new, "without.delta")
            check(content("with.delta") == content("without.delta"), f"{what}: the delta is the same with it")
            with open(new, "rb") as stdin:
                r = run(rdelta, "delta", "-f", "--new-signature", "piped.sig", "old.sig", "-", "piped.delta", stdin=stdin)
            check(r.returncode == 0 and content("piped.sig") == content("want.sig"),
                  f"{what}: from a pipe too ({r.stderr!r})")


def compressed(rdelta):
    run(rdelta, "signature", "-f", "old.img", "old.sig")
    r = run(rdelta, "delta", "-f", "--zstd", "--new-signature", "new.sig.zst", "old.sig", "new.img", "d.zst")
    check(r.returncode == 0, f"--zstd with --new-signature ({r.stderr!r})")
    r = run(rdelta, "delta", "-f", "new.sig.zst", "new.img", "again.delta")
    check(r.returncode == 0, f"the compressed new signature is read by the next delta ({r.stderr!r})")
    # It also names its basis: the new file's root kept beside the new signature.
    basis = json.loads(run(rdelta, "info", "--json", "again.delta").stdout)["basis_root"]
    root = json.loads(run(rdelta, "info", "--json", "d.zst").stdout)["root"]
    check(basis == root and len(root) == 32, f"the next night's delta names this night's root ({basis} vs {root})")
    run(rdelta, "signature", "-f", "new.img", "want.sig")
    run(rdelta, "delta", "-f", "--basis-root", root, "want.sig", "new.img", "want.delta")
    check(r.returncode == 0 and content("again.delta") == content("want.delta"),
          "the next night's delta against it equals the one against `rdelta signature`")


def refusals(rdelta):
    for name in ("n1.sig", "n1.delta"):
        if os.path.exists(name):
            os.unlink(name)
    with open("bad.sig", "wb") as f:
        f.write(b"rs\x01\x47\x00\x00\x08\x00")  # cut short
    r = run(rdelta, "delta", "--new-signature", "n1.sig", "bad.sig", "new.small", "n1.delta")
    check(r.returncode == 103 and not os.path.exists("n1.sig") and not os.path.exists("n1.delta"),
          f"a failed delta publishes neither output (exit {r.returncode})")
    r = run(rdelta, "signature", "--new-signature", "n1.sig", "new.small", "x.sig")
    check(r.returncode == 101 and b"--new-signature" in r.stderr, f"signature refuses the option ({r.stderr!r})")
    r = run(rdelta, "patch", "--new-signature", "n1.sig", "old.small", "without.delta", "x.out")
    check(r.returncode == 101 and b"--new-signature" in r.stderr, f"patch refuses the option ({r.stderr!r})")
    r = run(rdelta, "delta", "--new-signature", "-", "old.sig", "new.small", "-")
    check(r.returncode == 101, f"the delta and the signature cannot both go to standard output ({r.stderr!r})")
    with open("exists.sig", "wb") as f:
        f.write(b"keep")
    r = run(rdelta, "delta", "--new-signature", "exists.sig", "old.sig", "new.small", "n2.delta")
    check(r.returncode != 0 and content("exists.sig") == b"keep" and not os.path.exists("n2.delta"),
          f"an existing signature file is not replaced without -f, and nothing is written ({r.stderr!r})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    args = ap.parse_args()
    rdelta = os.path.abspath(args.rdelta)
    rng = random.Random(37)
    with tempfile.TemporaryDirectory(prefix="rdelta-nightly-") as work:
        os.chdir(work)
        make_files(rng)
        formats(rdelta)
        compressed(rdelta)
        refusals(rdelta)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
