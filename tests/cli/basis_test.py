#!/usr/bin/env python3
"""A delta names the version of the image it was made for: `delta --new-signature`
keeps the new file's root beside the signature, the next night's delta names it as
its basis (the "rdcb" trailer), and `patch --in-place` compares it with the image's
manifest before writing anything. A stale delta (an earlier night applied after a
later one), a delta for another image, or a wrong --basis-root is refused (106),
the image untouched; the same night applied again is a no-op (exit 0, nothing
written); without a manifest the patch still applies, verified, and says it could
not check the basis. rdiff still applies such deltas.
Usage: basis_test.py --rdelta PATH. Prints 'N passed, M failed'."""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from tally import check, summary

MiB = 1 << 20
SIZE = 8 * MiB


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)


def content(path):
    with open(path, "rb") as f:
        return f.read()


def stamp(path):
    st = os.stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def edit(rng, data, count=8):
    for _ in range(count):
        pos = rng.randrange(SIZE - 4096)
        data[pos:pos + 4096] = rng.randbytes(4096)


def info(rdelta, delta):
    r = run(rdelta, "info", "--json", delta)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def patch_json(rdelta, image, delta):
    r = run(rdelta, "patch", "--in-place", "--json", image, delta)
    stats = None
    for line in r.stderr.splitlines():
        if line.startswith("{"):
            stats = json.loads(line)
    return r, stats


def nights(rdelta, rng, work):
    """Night 0..3 of an image; the host keeps the signature with --new-signature.
    Returns the nights' contents and deltas d1..d3."""
    data = bytearray(rng.randbytes(SIZE))
    versions = [bytes(data)]
    image = os.path.join(work, "image")
    with open(image, "wb") as f:
        f.write(data)
    sig = os.path.join(work, "host.sig")
    r = run(rdelta, "signature", image, sig)
    assert r.returncode == 0, r.stderr
    deltas = []
    for n in (1, 2, 3):
        edit(rng, data)
        versions.append(bytes(data))
        with open(image, "wb") as f:
            f.write(data)
        d = os.path.join(work, f"d{n}")
        nxt = os.path.join(work, "next.sig")
        r = run(rdelta, "delta", "--in-place-safe", "--new-signature", nxt, sig, image, d)
        assert r.returncode == 0, r.stderr
        os.replace(nxt, sig)
        os.replace(os.path.join(work, ".next.sig.rdelta-root"), os.path.join(work, ".host.sig.rdelta-root"))
        deltas.append(d)
    return versions, deltas


def roots(rdelta, versions, deltas):
    d = [info(rdelta, x) for x in deltas]
    check(d[0]["basis_root"] == "", f"night 1 names no basis (its signature had no root beside it): {d[0]}")
    for n in (1, 2):
        check(d[n]["basis_root"] == d[n - 1]["root"],
              f"night {n + 1} names night {n}'s root as its basis: {d[n]['basis_root']} vs {d[n - 1]['root']}")
    return d


def chain(rdelta, work, versions, deltas):
    backup = os.path.join(work, "backup")
    with open(backup, "wb") as f:
        f.write(versions[0])
    for n, d in enumerate(deltas[:2], 1):
        r, stats = patch_json(rdelta, backup, d)
        check(r.returncode == 0 and content(backup) == versions[n], f"night {n} applies: {r.stderr}")
        if n == 2:
            check(stats and stats["basis"] == "matched", f"night 2's basis checked against the manifest: {stats}")
    # The same night again: nothing read past the manifest, nothing written.
    before = stamp(backup)
    r, stats = patch_json(rdelta, backup, deltas[1])
    check(r.returncode == 0 and "already up to date" in r.stderr, f"night 2 again: exit 0, up to date: {r.stderr}")
    check(stamp(backup) == before and content(backup) == versions[2], "night 2 again: image not written (mtime, ctime)")
    check(stats and stats["up_to_date"] and stats["image_bytes_written"] == 0 and stats["journal_bytes_written"] == 0,
          f"night 2 again: statistics say nothing was written: {stats}")
    r = run(rdelta, "patch", "--in-place", backup, deltas[2])
    check(r.returncode == 0 and content(backup) == versions[3], f"night 3 applies: {r.stderr}")
    # Night 2 after night 3: stale, refused before anything is written.
    before = stamp(backup)
    r = run(rdelta, "patch", "--in-place", backup, deltas[1])
    check(r.returncode == 106 and "another version" in r.stderr, f"stale night 2: 106: {r.returncode} {r.stderr}")
    check(stamp(backup) == before and content(backup) == versions[3], "stale night 2: image untouched")
    return backup


def other_image(rdelta, work, versions, deltas):
    """Night 3's delta for another image of the same size, which has a manifest."""
    other = os.path.join(work, "other")
    rng = random.Random(7)
    with open(other, "wb") as f:
        f.write(rng.randbytes(SIZE))
    sig = os.path.join(work, "other.sig")
    run(rdelta, "signature", other, sig)
    mine = os.path.join(work, "other.new")
    data = bytearray(content(other))
    edit(rng, data)
    with open(mine, "wb") as f:
        f.write(data)
    run(rdelta, "delta", "--in-place-safe", sig, mine, os.path.join(work, "od"))
    r = run(rdelta, "patch", "--in-place", other, os.path.join(work, "od"))  # gives it a manifest
    check(r.returncode == 0, f"the other image patched: {r.stderr}")
    before = stamp(other)
    r = run(rdelta, "patch", "--in-place", other, deltas[2])
    check(r.returncode == 106 and "another version" in r.stderr, f"misdirected delta: 106: {r.returncode} {r.stderr}")
    check(stamp(other) == before, "misdirected delta: image untouched")


def explicit_root(rdelta, work, versions):
    v3, v4 = os.path.join(work, "v3"), os.path.join(work, "v4")
    with open(v3, "wb") as f:
        f.write(versions[3])
    data = bytearray(versions[3])
    edit(random.Random(3), data)
    with open(v4, "wb") as f:
        f.write(data)
    sig = os.path.join(work, "v3.sig")
    run(rdelta, "signature", v3, sig)
    r = run(rdelta, "delta", "--basis-root", "xyz", sig, v4, os.path.join(work, "bad"))
    check(r.returncode == 101 and "32 hex digits" in r.stderr, f"--basis-root xyz: usage error: {r.stderr}")
    wrong = os.path.join(work, "wrong")
    r = run(rdelta, "delta", "--in-place-safe", "--basis-root", "00" * 16, sig, v4, wrong)
    check(r.returncode == 0 and info(rdelta, wrong)["basis_root"] == "00" * 16, "--basis-root written")
    backup = os.path.join(work, "backup")
    before = stamp(backup)
    r = run(rdelta, "patch", "--in-place", backup, wrong)
    check(r.returncode == 106 and stamp(backup) == before, f"a wrong --basis-root is refused: {r.stderr}")
    # rdiff ignores the trailer: the delta applies out of place with it.
    if shutil.which("rdiff"):
        out = os.path.join(work, "rdiff.out")
        r = run("rdiff", "patch", v3, wrong, out)
        check(r.returncode == 0 and content(out) == bytes(data), f"rdiff applies a delta naming its basis: {r.stderr}")
    # Without the image's manifest the basis cannot be checked: applied, verified, said.
    right = os.path.join(work, "right")
    root = info(rdelta, os.path.join(work, "d3"))["root"]
    run(rdelta, "delta", "--in-place-safe", "--basis-root", root, sig, v4, right)
    os.unlink(os.path.join(work, ".backup.rdelta-manifest"))
    r, stats = patch_json(rdelta, backup, right)
    check(r.returncode == 0 and content(backup) == bytes(data) and "no current manifest" in r.stderr,
          f"no manifest: applied and said so: {r.stderr}")
    check(stats and stats["basis"] == "unchecked", f"no manifest: basis unchecked in the statistics: {stats}")


def stale_record(rdelta, work):
    """A root kept beside a signature that was regenerated since is not used."""
    a, b = os.path.join(work, "ra"), os.path.join(work, "rb")
    rng = random.Random(5)
    for p in (a, b):
        with open(p, "wb") as f:
            f.write(rng.randbytes(MiB))
    sig, nxt = os.path.join(work, "r.sig"), os.path.join(work, "r.next")
    run(rdelta, "signature", a, sig)
    r = run(rdelta, "delta", "--new-signature", nxt, sig, b, os.path.join(work, "r.d1"))
    check(r.returncode == 0 and os.path.exists(os.path.join(work, ".r.next.rdelta-root")), "root kept beside next")
    r = run(rdelta, "delta", nxt, a, os.path.join(work, "r.d2"))
    check(info(rdelta, os.path.join(work, "r.d2"))["basis_root"] != "", "the kept root is named")
    run(rdelta, "signature", "-f", a, nxt)  # regenerated: another file's signature now
    r = run(rdelta, "delta", nxt, b, os.path.join(work, "r.d3"))
    check(info(rdelta, os.path.join(work, "r.d3"))["basis_root"] == "", "a stale kept root is not named")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    rdelta = os.path.abspath(ap.parse_args().rdelta)
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory(prefix="rdelta-basis-") as work:
        versions, deltas = nights(rdelta, rng, work)
        roots(rdelta, versions, deltas)
        chain(rdelta, work, versions, deltas)
        other_image(rdelta, work, versions, deltas)
        explicit_root(rdelta, work, versions)
        stale_record(rdelta, work)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
