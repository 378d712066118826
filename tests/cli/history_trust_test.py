#!/usr/bin/env python3
"""Trust and damage in an image's history folder.

Trust (root runs rdelta, user nobody plants names): a history folder nobody made
beside a root image in a shared sticky folder, nobody's symlink in place of the
folder (to a folder root would trust), a folder of mode 0755 or owned by nobody,
a point file that is a symlink, has another hard link or is nobody's: patch
--in-place (with and without --keep-history), history, restore, prune and verify
--history refuse each (exit 100) with one line naming the path, and change
nothing: not the image, not the planted names, not what a symlink leads to.

Damage: a byte flipped in a record of point 2 makes verify --history and restore
of point 2 fail (106, one line, no output file) while point 1 still restores; a
damaged footer is named.

Usage: history_trust_test.py --rdelta PATH. The trust cases need root and user
nobody (skipped otherwise); prints 'N passed, M failed'."""
import argparse
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys

import as_user
import tempfile

import tally
from tally import check, summary

KiB, MiB = 1 << 10, 1 << 20
NOBODY, NOGROUP = 65534, 65534
skipped = []


def as_nobody(fn):
    """Run fn() in a child as nobody, with umask 077."""
    return as_user.as_nobody(fn, 0o077)


def beside(img, suffix):
    d, b = os.path.split(img)
    return os.path.join(d, "." + b + suffix)


def tree(path):
    """What a name is and holds, not following symlinks: a folder's entries with
    their inode, owner, mode, size, modification time and content hash."""
    def one(p):
        st = os.lstat(p)
        body = None
        if stat.S_ISREG(st.st_mode):
            with open(p, "rb") as f:
                body = hashlib.blake2b(f.read()).hexdigest()
        elif stat.S_ISLNK(st.st_mode):
            body = os.readlink(p)
        return (st.st_ino, st.st_uid, st.st_mode, st.st_nlink, st.st_size, st.st_mtime_ns, body)
    if not os.path.lexists(path):
        return None
    out = {".": one(path)}
    if os.path.isdir(path) and not os.path.islink(path):
        for name in sorted(os.listdir(path)):
            out[name] = one(os.path.join(path, name))
    return out


class Tool:
    def __init__(self, rdelta):
        self.rdelta = rdelta
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RDELTA_")}

    def run(self, *args):
        return subprocess.run([self.rdelta, *args], capture_output=True, text=True, env=self.env)


class Chain:
    """Four versions of a small sparse image and the deltas between them."""

    def __init__(self, tool, work):
        self.tool = tool
        data = bytearray(2 * MiB)
        data[100 * KiB:700 * KiB] = os.urandom(600 * KiB)
        self.data = [bytes(data)]
        for k in range(3):
            data[(k * 500 + 50) * KiB:(k * 500 + 350) * KiB] = os.urandom(300 * KiB)
            data += os.urandom(10 * KiB)
            self.data.append(bytes(data))
        os.makedirs(os.path.join(work, "chain"))
        self.files, self.deltas = [], []
        for k, d in enumerate(self.data):
            path = os.path.join(work, "chain", str(k))
            with open(path, "wb") as f:
                f.write(d)
            self.files.append(path)
        for k in range(3):
            sig, delta = self.files[k] + ".sig", self.files[k] + ".delta"
            assert tool.run("signature", self.files[k], sig).returncode == 0
            r = tool.run("delta", "--in-place-safe", sig, self.files[k + 1], delta)
            assert r.returncode == 0, r.stderr
            self.deltas.append(delta)

    def image(self, path, nights=1, keep=True):
        """A root-owned image at version `nights` (with its manifest), with `nights`
        points kept, or none."""
        with open(path, "wb") as f:
            f.write(self.data[0])
        os.chmod(path, 0o644)
        for k in range(nights):
            os.utime(path, (1_700_000_000 + k * 86400,) * 2)
            r = self.tool.run("patch", "--in-place", *(["--keep-history"] if keep else []), path, self.deltas[k])
            assert r.returncode == 0, r.stderr
        return path


def commands(chain, img, out, nights):
    """Every command that reads or writes the history, as (label, args)."""
    return [("patch --in-place --keep-history", ["patch", "--in-place", "--keep-history", img, chain.deltas[nights]]),
            ("patch --in-place", ["patch", "--in-place", img, chain.deltas[nights]]),
            ("history", ["history", img]),
            ("history --json", ["history", "--json", img]),
            ("restore", ["restore", img, "1", out]),
            ("prune", ["prune", "--keep-last", "1", img]),
            ("verify --history", ["verify", "--history", img])]


def refused_untouched(tool, chain, label, img, nights, named, watched):
    """Each command exits 100 with one line naming `named`; the image, the
    `watched` names and any output are as they were."""
    out = os.path.join(os.path.dirname(img), "restored.out")
    before_img = tree(img)
    before = {w: tree(w) for w in watched}
    for what, args in commands(chain, img, out, nights):
        r = tool.run(*args)
        check(r.returncode == 100 and r.stderr.count("\n") == 1 and named in r.stderr and not r.stdout,
              f"{label}: {what} refused with one line naming {named} (exit {r.returncode}, {r.stderr!r})")
        check(not os.path.lexists(out), f"{label}: {what}: no output")
        check(tree(img) == before_img, f"{label}: {what}: the image is unchanged")
        for w in watched:
            check(tree(w) == before[w], f"{label}: {what}: {w} is unchanged")
        check(not os.path.lexists(beside(img, ".rdelta-journal")), f"{label}: {what}: no journal left")


def planted_folders(tool, chain, work):
    """History folders rdelta did not make, and a symlink in place of one."""
    shared = os.path.join(work, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)

    # nobody's folder beside root's image in a shared sticky folder
    img = chain.image(os.path.join(shared, "a.img"), keep=False)
    hist = beside(img, ".rdelta-history")
    check(as_nobody(lambda: os.mkdir(hist, 0o700)), "nobody makes a history folder beside root's image")
    refused_untouched(tool, chain, "nobody's history folder", img, 1, hist, [hist])

    # nobody's symlink in place of the folder, to a folder root would trust
    img = chain.image(os.path.join(shared, "b.img"), keep=False)
    target = os.path.join(work, "root-private")
    os.mkdir(target, 0o700)
    with open(os.path.join(target, "keep"), "wb") as f:
        f.write(b"root's")
    hist = beside(img, ".rdelta-history")
    check(as_nobody(lambda: os.symlink(target, hist)), "nobody plants a symlink as the history folder")
    refused_untouched(tool, chain, "nobody's symlink as the history folder", img, 1, hist, [hist, target])

    # root's own symlink is not followed either (the name must be the folder)
    own = os.path.join(work, "own")
    os.mkdir(own, 0o755)
    img = chain.image(os.path.join(own, "c.img"), keep=False)
    hist = beside(img, ".rdelta-history")
    os.symlink(target, hist)
    refused_untouched(tool, chain, "a symlink as the history folder", img, 1, hist, [hist, target])

    # a folder others may enter, and one owned by nobody, in root's folder
    for name, mode, uid in (("d.img", 0o755, 0), ("e.img", 0o700, NOBODY), ("f.img", 0o770, 0)):
        img = chain.image(os.path.join(own, name), keep=False)
        hist = beside(img, ".rdelta-history")
        os.mkdir(hist)
        os.chmod(hist, mode)
        os.chown(hist, uid, uid)
        refused_untouched(tool, chain, f"history folder mode {mode:o} uid {uid}", img, 1, hist, [hist])


def planted_points(tool, chain, work):
    """Point files that are symlinks, have another hard link, or are nobody's."""
    own = os.path.join(work, "points")
    os.mkdir(own, 0o755)
    elsewhere = os.path.join(work, "elsewhere")
    os.mkdir(elsewhere, 0o700)

    def with_history(name):
        img = chain.image(os.path.join(own, name), 2)
        hist = beside(img, ".rdelta-history")
        return img, hist, os.path.join(hist, "point-0000000001")

    img, hist, point = with_history("s.img")
    copy = os.path.join(elsewhere, "s.point")
    shutil.copy2(point, copy)
    os.unlink(point)
    os.symlink(copy, point)
    refused_untouched(tool, chain, "a point that is a symlink", img, 2, point, [hist, copy])

    img, hist, point = with_history("h.img")
    link = os.path.join(elsewhere, "h.point")
    os.link(point, link)
    refused_untouched(tool, chain, "a point with another hard link", img, 2, point, [hist, link])

    img, hist, point = with_history("n.img")
    os.chown(point, NOBODY, NOGROUP)
    refused_untouched(tool, chain, "a point nobody owns", img, 2, point, [hist])


def damaged(tool, chain, work):
    """A flipped record byte in point 2, and a damaged footer."""
    folder = os.path.join(work, "damage")
    os.mkdir(folder, 0o755)
    img = chain.image(os.path.join(folder, "x.img"), 3)
    hist = beside(img, ".rdelta-history")
    r = tool.run("history", "--json", img)
    points = json.loads(r.stdout)["points"] if r.returncode == 0 else []
    if not check(len(points) == 3, f"damage: three points ({r.returncode} {r.stderr})"):
        return
    out = os.path.join(folder, "out")
    # Points are numbered newest first; point 2 is the second file made.
    p2 = os.path.join(hist, "point-0000000002")
    with open(p2, "r+b") as f:
        f.seek(4096 + 40 + 1000)  # inside the first record's data
        b = f.read(1)
        f.seek(4096 + 40 + 1000)
        f.write(bytes([b[0] ^ 0x10]))
    r = tool.run("verify", "--history", img)
    check(r.returncode == 106 and "restore point 2" in r.stderr and "restore point 1 " not in r.stderr
          and "restore point 3" not in r.stderr,
          f"damage: verify --history exits 106 naming point 2 only ({r.returncode}, {r.stderr!r})")
    for n in ("2", "3"):
        r = tool.run("restore", img, n, out)
        check(r.returncode == 106 and r.stderr.count("\n") == 1 and "point 2" in r.stderr and not os.path.lexists(out),
              f"damage: restore of point {n} exits 106 with one line naming point 2, no output "
              f"({r.returncode}, {r.stderr!r})")
    r = tool.run("restore", img, "1", out)
    check(r.returncode == 0 and open(out, "rb").read() == chain.data[2],
          f"damage: point 1 (not through point 2) still restores ({r.returncode}, {r.stderr!r})")
    os.unlink(out)
    # A footer damaged: the file is named, for every command that reads the points.
    p1 = os.path.join(hist, "point-0000000001")
    size = os.path.getsize(p1)
    with open(p1, "r+b") as f:
        f.seek(size - 64)
        b = f.read(1)
        f.seek(size - 64)
        f.write(bytes([b[0] ^ 0x01]))
    for what, args in (("history", ["history", img]), ("restore", ["restore", img, "1", out]),
                       ("verify --history", ["verify", "--history", img]),
                       ("prune", ["prune", "--keep-last", "1", img])):
        r = tool.run(*args)
        check(r.returncode == 106 and r.stderr.count("\n") == 1 and p1 in r.stderr and "footer" in r.stderr
              and not os.path.lexists(out),
              f"damage: {what} with a damaged footer names {p1} ({r.returncode}, {r.stderr!r})")
    check(os.path.exists(p1) and os.path.exists(p2), "damage: the damaged points are left for inspection")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    tool = Tool(os.path.abspath(ap.parse_args().rdelta))
    os.umask(0o022)
    work = tempfile.mkdtemp(prefix="rdelta-history-trust-")
    os.chmod(work, 0o755)
    try:
        chain = Chain(tool, work)
        damaged(tool, chain, work)
        if os.geteuid() != 0:
            skipped.append("the trust cases (need root and user nobody)")
        else:
            planted_folders(tool, chain, work)
            planted_points(tool, chain, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for what in skipped:
        print("skipped:", what)
    if tally.passed + tally.failed == 0:
        return 77
    return summary()


if __name__ == "__main__":
    sys.exit(main())
