#!/usr/bin/env python3
"""What an in-place patch or a recovery trusts beside the image, tried as an
unprivileged attacker (uid nobody, when run as root) and a careless operator would:
forged journals and staging files, a name swapped for a symlink while root works,
running out of memory in the middle of a patch, a delta without checksum trailer
applied twice, and what a full disk or a kill leaves behind.
Usage: trust_test.py --rdelta PATH. Prints 'N passed, M failed'."""
import argparse
import ctypes
import os
import pwd
import random
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

from tally import check, summary

MiB = 1 << 20
JOURNAL_MAGIC, HOT, COMMITTED, DATA = 0x72646A6E, 1, 2, 1

_xxhash = ctypes.CDLL("libxxhash.so.0")
_xxh3 = _xxhash.XXH3_64bits_withSeed
_xxh3.restype = ctypes.c_uint64
_xxh3.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]


def xxh3(data, seed=0):
    return _xxh3(bytes(data), len(data), seed)


def journal_bytes(st, records, state=HOT, old_size=None, new_size=None, ino=None, nonce=0x1234):
    """A journal written by hand from docs/format.md: records are (pos, data)."""
    body = bytearray()
    for index, (pos, data) in enumerate(records):
        head = struct.pack(">IIQQQ", DATA, 0, pos, len(data), index)
        body += head + struct.pack(">Q", xxh3(head + data, nonce)) + data
    old = st.st_size if old_size is None else old_size
    header = struct.pack(">IIQI4xQQQQQQQ", JOURNAL_MAGIC, 1, 1, state, nonce, st.st_dev,
                         st.st_ino if ino is None else ino, old, old if new_size is None else new_size,
                         4096 + len(body), len(records))
    header += struct.pack(">Q", xxh3(header))
    out = bytearray(4096)
    out[0:88] = header
    out[512:600] = header
    return bytes(out + body)


def set_note(image, nonce=0x1234, journal=None):
    """The note an in-place patch sets on its image (docs/format.md): it binds the
    image to the journal with this nonce, and recovery replays no other one."""
    st = os.stat(image)
    value = f"2 journal {st.st_dev} {st.st_ino} {nonce:016x} {journal or journal_of(os.path.abspath(image))}"
    os.setxattr(image, "user.rdelta.unfinished", value.encode())


def journal_of(image):
    d, b = os.path.split(image)
    return os.path.join(d, "." + b + ".rdelta-journal")


def remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def content(path):
    with open(path, "rb") as f:
        return f.read()


def note_of(path):
    try:
        return os.getxattr(path, "user.rdelta.unfinished", follow_symlinks=False)
    except OSError:
        return None


class Tool:
    def __init__(self, rdelta):
        self.rdelta = rdelta

    def run(self, *args, user=None, limit_kib=None, timeout=120):
        def preexec():
            if limit_kib:
                resource.setrlimit(resource.RLIMIT_AS, (limit_kib * 1024, limit_kib * 1024))
            if user:
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)
        return subprocess.run([self.rdelta, *args], capture_output=True, text=True, timeout=timeout,
                              preexec_fn=preexec if (user or limit_kib) else None)


def as_user(user, fn):
    """Run fn() in a child process with the user's ids (the attacker's actions)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            fn()
            os._exit(0)
        except BaseException as e:  # noqa: BLE001 - report and leave the child
            print("attacker step failed:", e, file=sys.stderr)
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def make_delta(tool, old, new, delta, *extra):
    sig = delta + ".sig"
    r = tool.run("signature", "-f", old, sig)
    assert r.returncode == 0, r.stderr
    r = tool.run("delta", "-f", *extra, sig, new, delta)
    assert r.returncode == 0, r.stderr
    os.unlink(sig)


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


def sanitized(rdelta):
    with open(rdelta, "rb") as f:
        return b"__asan_init" in f.read()


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


def stopped(pid, timeout=60):
    """Wait until the process `pid` is stopped (SIGSTOP); False if it ended or timed out."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            return False
        if fields[0] in ("T", "t"):
            return True
        if fields[0] == "Z":
            return False
        time.sleep(0.01)
    return False


def patch_while_moved(tool, img, delta, move):
    """`patch --in-place IMAGE DELTA`, stopped after its second journal batch while
    move() runs: the CompletedProcess-like (returncode, stderr)."""
    env = dict(os.environ, RDELTA_INPLACE_BATCH_BYTES="4096", RDELTA_TEST_STOP_AFTER_BATCH="2")
    p = subprocess.Popen([tool.rdelta, "patch", "--in-place", img, delta], env=env, stderr=subprocess.PIPE, text=True)
    try:
        if not check(stopped(p.pid), "the patch stops after batch 2 (test hook)"):
            p.kill()
        else:
            move()
            os.kill(p.pid, signal.SIGCONT)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode, err


def nightly_files(work, rng, n):
    """An image's content over n + 1 nights (a few regions change, and it grows, each
    night: a journal of an earlier night, finished, would cut it)."""
    versions = [bytearray(rng.randbytes(2 * MiB))]
    for _ in range(n):
        v = bytearray(versions[-1])
        for _ in range(8):
            pos = rng.randrange(len(v) - 20000)
            v[pos:pos + 16384] = rng.randbytes(16384)
        versions.append(v + rng.randbytes(100000))
    paths = []
    for k, v in enumerate(versions):
        paths.append(os.path.join(work, f"night{k}"))
        with open(paths[-1], "wb") as f:
            f.write(v)
    return [bytes(v) for v in versions], paths


def replayed_journal(tool, work, rng, nobody):
    """In a folder nobody owns, nobody captures root's journal during a patch (a copy
    while it is hot, and the file itself, moved away: the run commits into it) and
    puts them back nights later: the run that lost it says so, and neither recover
    nor the next patch replays them (the image's note binds it to one update); nor
    do they make the image refused as an input."""
    home = os.path.join(work, "nightly")
    os.mkdir(home)
    os.chown(home, nobody.pw_uid, nobody.pw_gid)
    versions, paths = nightly_files(work, rng, 3)
    deltas = []
    for k in range(3):
        deltas.append(os.path.join(work, f"night{k}.delta"))
        make_delta(tool, paths[k], paths[k + 1], deltas[-1])
    img = os.path.join(home, "disk.img")
    shutil.copyfile(paths[0], img)
    journal = journal_of(img)
    stash, hot = os.path.join(home, "stash"), os.path.join(home, "hot")

    def capture():
        shutil.copy2(journal, hot)  # a copy of the hot journal, root's and 0600 like it
        as_user(nobody, lambda: os.rename(journal, stash))

    # Night 1: nobody copies and renames the journal away while root's patch is stopped.
    rc, err = patch_while_moved(tool, img, deltas[0], capture)
    check(rc == 0 and content(img) == versions[1], f"night 1 patches (exit {rc}, {err.strip()!r})")
    check("was moved or replaced during the patch" in err and journal in err,
          f"night 1 says its journal's name was moved ({err.strip()!r})")
    check(os.path.exists(stash) and os.stat(stash).st_uid == 0 and not os.path.exists(journal),
          "the moved journal is root's (the run committed into it), and nothing is under its name")
    r = tool.run("patch", "--in-place", img, deltas[1])
    check(r.returncode == 0 and content(img) == versions[2], f"night 2 patches ({r.stderr.strip()!r})")

    # Put back: night 1's hot journal would write night 0's bytes back.
    check(as_user(nobody, lambda: os.rename(hot, journal)), "nobody puts the hot copy back")
    sig = os.path.join(work, "nightly.sig")
    r = tool.run("signature", img, sig)
    check(r.returncode == 0, f"a stale journal does not make the image refused as an input ({r.stderr.strip()!r})")
    r = tool.run("recover", img)
    check(r.returncode == 0 and "stale journal" in r.stderr and journal in r.stderr and content(img) == versions[2],
          f"recover ignores the stale journal: image unchanged (exit {r.returncode}, {r.stderr.strip()!r})")
    check(not os.path.exists(journal), "the stale journal (root's) is deleted")
    # The committed one would cut night 2's image to night 1's size.
    check(as_user(nobody, lambda: os.rename(stash, journal)), "nobody puts the moved journal back")
    r = tool.run("patch", "--in-place", img, deltas[2])
    check(r.returncode == 0 and "stale journal" in r.stderr and content(img) == versions[3],
          f"patch --in-place ignores it and patches (exit {r.returncode}, {r.stderr.strip()!r})")
    check(not os.path.exists(journal), "and deletes it")

    # Replaced: nobody's own file under the name at the end of the run is left alone.
    shutil.copyfile(paths[0], img)

    def replace():
        os.rename(journal, stash)
        with open(journal, "wb") as f:
            f.write(b"nobody's")
    rc, err = patch_while_moved(tool, img, deltas[0], lambda: as_user(nobody, replace))
    check(rc == 0 and content(img) == versions[1] and "was moved or replaced" in err,
          f"a journal replaced during the patch is reported (exit {rc}, {err.strip()!r})")
    check(content(journal) == b"nobody's", "nobody's file under the journal's name is not deleted")
    remove(journal)
    remove(stash)

    # A committed journal of an update that is not the image's: never cuts it.
    st = os.stat(img)
    with open(journal, "wb") as f:
        f.write(journal_bytes(st, [], state=COMMITTED, new_size=0))
    os.chmod(journal, 0o600)
    r = tool.run("recover", img)
    check(r.returncode == 0 and "stale journal" in r.stderr and content(img) == versions[1],
          f"a committed journal without the image's note does not truncate it ({r.returncode}, {r.stderr.strip()!r})")
    set_note(img, nonce=0x99)
    with open(journal, "wb") as f:
        f.write(journal_bytes(st, [], state=COMMITTED, new_size=0))
    r = tool.run("recover", img)
    check(r.returncode == 0 and "stale journal" in r.stderr and content(img) == versions[1]
          and not os.path.exists(journal),
          f"nor one whose nonce is not the note's ({r.returncode}, {r.stderr.strip()!r})")
    remove(journal)


def damaged_header(tool, work, rng):
    """A journal whose header slots are written but fail their checksum is refused
    with 106: neither discarded nor applied, the image left as it is."""
    img = os.path.join(work, "hdr.img")
    data = rng.randbytes(MiB)
    with open(img, "wb") as f:
        f.write(data)
    with open(img + ".new", "wb") as f:
        f.write(rng.randbytes(MiB))
    delta = os.path.join(work, "hdr.delta")
    make_delta(tool, img, img + ".new", delta)
    st = os.stat(img)
    forged = bytearray(journal_bytes(st, [(0, rng.randbytes(4096))]))
    forged[80] ^= 1  # slot A's checksum
    forged[512 + 80] ^= 1  # slot B's
    with open(journal_of(img), "wb") as f:
        f.write(forged)
    set_note(img)
    for args in (("recover", img), ("patch", "--in-place", img, delta)):
        r = tool.run(*args)
        check(r.returncode == 106 and "header is damaged" in r.stderr and journal_of(img) in r.stderr,
              f"{args[0]}: a damaged header is refused with 106 (exit {r.returncode}, {r.stderr.strip()!r})")
        check(content(img) == data and content(journal_of(img)) == bytes(forged),
              f"{args[0]}: the image and the journal are left exactly as they were")
    remove(journal_of(img))


def killed_before_journal_deleted(tool, work, rng):
    """A patch killed after it dropped the image's note but before it deleted the
    journal (committed, the image whole) leaves a stale journal: the image reads,
    and recover deletes the journal without replaying it."""
    if not shutil.which("strace"):
        print("killed_before_journal_deleted: skipped (no strace)")
        return
    versions, paths = nightly_files(work, rng, 1)
    delta = os.path.join(work, "late.delta")
    make_delta(tool, paths[0], paths[1], delta)
    img = os.path.join(work, "late.img")
    shutil.copyfile(paths[0], img)
    r = subprocess.run(["strace", "-f", "-o", "/dev/null", "-e", "inject=unlinkat:error=EIO:signal=KILL:when=1",
                        tool.rdelta, "patch", "--in-place", img, delta], capture_output=True, text=True)
    check(r.returncode != 0 and os.path.exists(journal_of(img)) and note_of(img) is None
          and content(img) == versions[1],
          f"killed at the journal's unlinkat: the image is new, without its note, the journal left ({r.returncode})")
    sig = os.path.join(work, "late.sig")
    r = tool.run("signature", img, sig)
    check(r.returncode == 0, f"the image reads beside its stale journal ({r.stderr.strip()!r})")
    r = tool.run("recover", img)
    check(r.returncode == 0 and "stale journal" in r.stderr and content(img) == versions[1]
          and not os.path.exists(journal_of(img)),
          f"recover deletes the stale journal, the image stays new ({r.returncode}, {r.stderr.strip()!r})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    args = ap.parse_args()
    rdelta = os.path.abspath(args.rdelta)
    tool = Tool(rdelta)
    rng = random.Random(36)
    with tempfile.TemporaryDirectory(prefix="rdelta-trust-") as work:
        os.chmod(work, 0o755)
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            forged_journals(tool, work, rng, nobody)
            symlink_race(tool, work, rng, nobody)
            replayed_journal(tool, work, rng, nobody)
        else:
            print("forged journals and the symlink race: skipped (they need root and uid nobody)")
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
