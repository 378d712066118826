#!/usr/bin/env python3
"""What an in-place patch or a recovery trusts beside the image, tried as an
unprivileged attacker (uid nobody, when run as root) and a careless operator would:
forged journals and staging files, a name swapped for a symlink while root works,
running out of memory in the middle of a patch, a delta without checksum trailer
applied twice, and what a full disk or a kill leaves behind; journals of an
earlier update put back, and damaged journal headers (stale_journals.py).
Usage: trust_test.py --rdelta PATH --rdelta-test PATH (the build with the test
hooks, for a patch stopped after a journal batch). Prints 'N passed, M failed'."""
import argparse
import ctypes
import os
import pwd
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import time

from build_kind import sanitized
from journal_forge import (COMMITTED, MiB, Tool, as_user, content, journal_bytes, journal_of, make_delta, note_of,
                           remove, set_note)
from stale_journals import damaged_header, killed_before_journal_deleted, replayed_journal
from tally import check, summary


def forged_journals(tool, work, rng, nobody):
    """A journal or staging file someone else made is never followed."""
    shared = os.path.join(work, "shared")
    os.mkdir(shared)
    os.chmod(shared, 0o1777)  # sticky and world-writable, like /tmp
    img = os.path.join(shared, "root.img")
    original = rng.randbytes(MiB)
    with open(img, "wb") as f:
        f.write(original)
    os.chmod(img, 0o644)
    st = os.stat(img)
    evil = b"written by nobody" * 241

    def plant(data, mode=0o600):
        def write():
            with open(journal_of(img), "wb") as f:
                f.write(data)
            os.chmod(journal_of(img), mode)
        return write

    # A hot journal whose record puts nobody's bytes into root's image.
    check(as_user(nobody, plant(journal_bytes(st, [(0, evil)]))), "nobody plants a journal")
    r = tool.run("recover", img)
    check(r.returncode == 100 and "not a journal rdelta made" in r.stderr and journal_of(img) in r.stderr,
          f"recover refuses a journal owned by nobody (exit {r.returncode}, {r.stderr.strip()!r})")
    check(content(img) == original, "root's image is unchanged after recover")
    delta = os.path.join(work, "literal.delta")
    new = rng.randbytes(MiB)
    with open(os.path.join(work, "new"), "wb") as f:
        f.write(new)
    make_delta(tool, img, os.path.join(work, "new"), delta)
    r = tool.run("patch", "--in-place", img, delta)
    check(r.returncode == 100 and "not a journal rdelta made" in r.stderr,
          f"patch --in-place refuses it too (exit {r.returncode}, {r.stderr.strip()!r})")
    check(content(img) == original and os.path.exists(journal_of(img)),
          "the image is unchanged and the planted journal left for its owner to see")
    remove(journal_of(img))

    # A committed journal that would truncate root's image to nothing.
    check(as_user(nobody, plant(journal_bytes(st, [], state=COMMITTED, new_size=0))), "nobody plants a committed journal")
    r = tool.run("patch", "--in-place", img, delta)
    check(r.returncode == 100 and os.path.getsize(img) == MiB and content(img) == original,
          f"a committed journal of nobody's does not truncate root's image (exit {r.returncode}, size {os.path.getsize(img)})")
    remove(journal_of(img))

    # Root's own journal, but naming inode 0 or another file: no identity, no recovery.
    for label, ino in (("inode 0", 0), ("another inode", st.st_ino + 1)):
        with open(journal_of(img), "wb") as f:
            f.write(journal_bytes(st, [(0, evil)], ino=ino))
        r = tool.run("recover", img)
        check(r.returncode == 106 and "belongs to another file" in r.stderr and content(img) == original,
              f"a journal naming {label} is not applied (exit {r.returncode}, {r.stderr.strip()!r})")
        remove(journal_of(img))

    # A journal writable by others is no journal of ours, whoever owns it.
    with open(journal_of(img), "wb") as f:
        f.write(journal_bytes(st, [(0, evil)]))
    os.chmod(journal_of(img), 0o666)
    r = tool.run("recover", img)
    check(r.returncode == 100 and "writable by others" in r.stderr and content(img) == original,
          f"a world-writable journal is refused (exit {r.returncode}, {r.stderr.strip()!r})")
    remove(journal_of(img))

    # nobody's own image in nobody's folder: a staging file nobody made by hand
    # (untagged) or left writable to all is not copied in by root's recover.
    home = os.path.join(work, "nobody-home")
    os.mkdir(home)
    os.chown(home, nobody.pw_uid, nobody.pw_gid)
    theirs = os.path.join(home, "img")
    staging = os.path.join(home, ".img.rdelta-rewrite")

    def make_theirs():
        with open(theirs, "wb") as f:
            f.write(original)
        with open(staging, "wb") as f:
            f.write(evil)
    check(as_user(nobody, make_theirs), "nobody makes an image and a staging file")
    r = tool.run("recover", theirs)
    check(r.returncode == 100 and "not tagged" in r.stderr and content(theirs) == original,
          f"an untagged staging file is refused (exit {r.returncode}, {r.stderr.strip()!r})")


def symlink_race(tool, work, rng, nobody, seconds=6.0):
    """nobody swaps the image's name with a symlink to root's file, over and over,
    while root patches and recovers it: root's file is never written."""
    home = os.path.join(work, "race")
    os.mkdir(home)
    os.chown(home, nobody.pw_uid, nobody.pw_gid)
    decoy_dir = os.path.join(work, "root-only")
    os.mkdir(decoy_dir, 0o755)
    decoy = os.path.join(decoy_dir, "decoy")
    decoy_bytes = rng.randbytes(256 * 1024)
    with open(decoy, "wb") as f:
        f.write(decoy_bytes)
    decoy_st = os.stat(decoy)
    img, swap = os.path.join(home, "img"), os.path.join(home, "swap")
    old, new = rng.randbytes(256 * 1024), rng.randbytes(256 * 1024)
    with open(os.path.join(work, "race.old"), "wb") as f:
        f.write(old)
    with open(os.path.join(work, "race.new"), "wb") as f:
        f.write(new)
    # Literal data only and no trailer: it applies to any file, the decoy included.
    delta = os.path.join(work, "race.delta")
    make_delta(tool, os.path.join(work, "race.old"), os.path.join(work, "race.new"), delta, "--no-checksum")

    def setup():
        with open(img, "wb") as f:
            f.write(old)
        os.symlink(decoy, swap)
    check(as_user(nobody, setup), "nobody makes the image and a symlink to root's file")

    pid = os.fork()
    if pid == 0:  # the attacker: exchange the two names as fast as it can, for a while
        os.setgid(nobody.pw_gid)
        os.setuid(nobody.pw_uid)
        libc = ctypes.CDLL(None, use_errno=True)
        a, b = img.encode(), swap.encode()
        end = time.monotonic() + seconds + 30
        while time.monotonic() < end:
            libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE
        os._exit(0)
    runs = refused = 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            for args in (("patch", "--in-place", "--force", img, delta), ("recover", img)):
                r = tool.run(*args)
                runs += 1
                refused += r.returncode != 0
    finally:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    after = os.stat(decoy)
    check(runs > 10, f"the race ran ({runs} runs, {refused} refused)")
    check(content(decoy) == decoy_bytes and after.st_ino == decoy_st.st_ino and after.st_uid == 0,
          f"root's file is never written or replaced in {runs} runs under the swapping")
    check(stat.S_ISLNK(os.lstat(img).st_mode) or stat.S_ISLNK(os.lstat(swap).st_mode), "the symlink is still there")


def out_of_memory(tool, work, rng, rdelta):
    """Running out of memory at any point of an in-place patch leaves the old image
    or the new one, never a mix, and no journal or note."""
    if sanitized(rdelta):
        print("out_of_memory: skipped under the sanitizers (they reserve terabytes of address space)")
        return
    old = bytearray(rng.randbytes(16 * MiB))
    new = bytearray(old)
    for k in range(40):
        pos = rng.randrange(len(new) - 70000)
        new[pos:pos + 65536] = rng.randbytes(65536)
    new += rng.randbytes(300000)
    paths = {n: os.path.join(work, "oom." + n) for n in ("old", "new", "img")}
    for n, data in (("old", old), ("new", new)):
        with open(paths[n], "wb") as f:
            f.write(data)
    delta = os.path.join(work, "oom.delta")
    make_delta(tool, paths["old"], paths["new"], delta, "--in-place-safe")
    outcomes = {"old": 0, "new": 0}
    for limit in range(8000, 64000, 2000):
        shutil.copyfile(paths["old"], paths["img"])
        r = tool.run("patch", "--in-place", paths["img"], delta, limit_kib=limit)
        got = content(paths["img"])
        is_old, is_new = got == bytes(old), got == bytes(new)
        check(is_new if r.returncode == 0 else is_old,
              f"ulimit -v {limit}: exit {r.returncode}, image {'new' if is_new else 'old' if is_old else 'TORN'} "
              f"({r.stderr.strip()[-200:]!r})")
        check(not os.path.exists(journal_of(paths["img"])) and note_of(paths["img"]) is None,
              f"ulimit -v {limit}: no journal or note left")
        outcomes["new" if is_new else "old"] += 1
    check(outcomes["old"] > 0 and outcomes["new"] > 0, f"the limits cover both outcomes ({outcomes})")


def applied_twice(tool, work, rng):
    """A delta without checksum trailer is not applied twice in place."""
    old = rng.randbytes(8 * MiB)
    new = old[:MiB] + old[MiB + 10000:] + rng.randbytes(20000)
    for n, data in (("old", old), ("new", new)):
        with open(os.path.join(work, "twice." + n), "wb") as f:
            f.write(data)
    img = os.path.join(work, "twice.img")
    makers = [("rdelta --in-place-safe --no-checksum", ("--in-place-safe", "--no-checksum"))]
    if shutil.which("rdiff"):
        makers.append(("Debian's rdiff", None))
    for label, extra in makers:
        delta = os.path.join(work, "twice.delta")
        if extra is None:
            sig = delta + ".sig"
            subprocess.run(["rdiff", "-f", "signature", os.path.join(work, "twice.old"), sig], check=True)
            subprocess.run(["rdiff", "-f", "delta", sig, os.path.join(work, "twice.new"), delta], check=True)
        else:
            make_delta(tool, os.path.join(work, "twice.old"), os.path.join(work, "twice.new"), delta, *extra)
        shutil.copyfile(os.path.join(work, "twice.old"), img)
        r1 = tool.run("patch", "--in-place", img, delta)
        check(r1.returncode == 0 and content(img) == new, f"{label}: the first patch applies ({r1.stderr.strip()!r})")
        r2 = tool.run("patch", "--in-place", img, delta)
        check(r2.returncode == 106 and "already applied" in r2.stderr and content(img) == new,
              f"{label}: the second is refused with 106, the image stays new (exit {r2.returncode}, {r2.stderr.strip()!r})")
        # Once the file changed, the record is stale: a delta made for it applies.
        with open(img, "r+b") as f:
            f.write(old[:MiB])
            f.truncate(len(old))
            f.seek(0)
            f.write(old)
        r3 = tool.run("patch", "--in-place", img, delta)
        check(r3.returncode == 0 and content(img) == new,
              f"{label}: after the file was put back, the delta applies again ({r3.stderr.strip()!r})")


def leftovers(tool, work, rng):
    """An empty journal (a full disk) leaves the intact image readable and patchable."""
    img = os.path.join(work, "left.img")
    data = rng.randbytes(2 * MiB)
    with open(img, "wb") as f:
        f.write(data)
    open(journal_of(img), "wb").close()
    sig = os.path.join(work, "left.sig")
    r = tool.run("signature", img, sig)
    check(r.returncode == 0, f"signature reads an image beside an empty journal ({r.stderr.strip()!r})")
    r = tool.run("recover", img)
    check(r.returncode == 0 and not os.path.exists(journal_of(img)) and content(img) == data,
          f"recover drops the empty journal ({r.stderr.strip()!r})")


def killed_after_rewrite_copy(tool, work, rng):
    """A rewrite of a hard-linked file killed once its copy is done (before it
    deletes the staging file, or before it drops the note) leaves no name of the
    file refused for good: recover through any link finishes or drops it."""
    if not shutil.which("strace"):
        print("killed_after_rewrite_copy: skipped (no strace)")
        return
    folder, other_folder = os.path.join(work, "rw"), os.path.join(work, "rw-other")
    os.mkdir(folder)
    os.mkdir(other_folder)
    basis, new = rng.randbytes(MiB), rng.randbytes(MiB)
    paths = {n: os.path.join(folder, n) for n in ("basis", "new", "out")}
    for n, data in (("basis", basis), ("new", new)):
        with open(paths[n], "wb") as f:
            f.write(data)
    delta = os.path.join(folder, "d")
    make_delta(tool, paths["basis"], paths["new"], delta)
    other = os.path.join(other_folder, "link")
    for syscall in ("unlink", "fremovexattr"):
        for p in (paths["out"], other):
            remove(p)
        shutil.copyfile(paths["basis"], paths["out"])
        os.link(paths["out"], other)
        r = subprocess.run(["strace", "-f", "-o", "/dev/null", "-e", f"inject={syscall}:error=EIO:signal=KILL:when=1",
                            tool.rdelta, "patch", "-f", paths["basis"], delta, paths["out"]], capture_output=True, text=True)
        check(r.returncode != 0, f"killed at {syscall} (exit {r.returncode})")
        r = tool.run("recover", other)
        check(r.returncode == 0, f"killed at {syscall}: recover through the other link ({r.stderr.strip()!r})")
        sig = os.path.join(work, "rw.sig")
        for name in (paths["out"], other):
            r = tool.run("signature", "-f", name, sig)
            check(r.returncode == 0 and content(name) == new,
                  f"killed at {syscall}: {os.path.relpath(name, work)} is new and reads ({r.stderr.strip()!r})")
        check(not os.path.exists(os.path.join(folder, ".out.rdelta-rewrite")) and note_of(other) is None,
              f"killed at {syscall}: no staging file or note left")


def record_past_end(tool, work, rng):
    """A journal record past the file's old end fails validation: nothing is written."""
    img = os.path.join(work, "far.img")
    data = rng.randbytes(MiB)
    with open(img, "wb") as f:
        f.write(data)
    st = os.stat(img)
    with open(journal_of(img), "wb") as f:
        f.write(journal_bytes(st, [(1 << 62, b"x" * 4096), (0, b"y" * 4096)]))
    set_note(img)
    r = tool.run("recover", img)
    check(r.returncode == 106 and "past the file's old end" in r.stderr and content(img) == data,
          f"a record at 2^62 is refused before anything is written (exit {r.returncode}, {r.stderr.strip()!r})")
    remove(journal_of(img))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdelta-test", required=True)
    args = ap.parse_args()
    rdelta = os.path.abspath(args.rdelta)
    tool = Tool(rdelta, os.path.abspath(args.rdelta_test))
    rng = random.Random(36)
    with tempfile.TemporaryDirectory(prefix="rdelta-trust-") as work:
        os.chmod(work, 0o755)
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            forged_journals(tool, work, rng, nobody)
            symlink_race(tool, work, rng, nobody)
            replayed_journal(tool, work, rng, nobody)
        else:
            print("forged journals, the symlink race, replayed journals: skipped (they need root and uid nobody)")
        out_of_memory(tool, work, rng, rdelta)
        applied_twice(tool, work, rng)
        leftovers(tool, work, rng)
        killed_after_rewrite_copy(tool, work, rng)
        record_past_end(tool, work, rng)
        damaged_header(tool, work, rng)
        killed_before_journal_deleted(tool, work, rng)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
