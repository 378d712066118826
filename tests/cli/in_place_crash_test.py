#!/usr/bin/env python3
"""Crash injection for `rdelta patch --in-place` (issue 10): after SIGKILL at a random
moment, a disk-full error, or a damaged journal, the image is exactly the old image
or exactly the new one: the same bytes and the same allocated extents (SEEK_DATA /
SEEK_HOLE map). Needs only rdelta (not Debian's rdiff), and rdelta-test for the
runs that set small journal batches or a kill after one (hook_env.py).

  in_place_crash_test.py --rdelta PATH --rdelta-test PATH [--runs N] [--seed S]

--runs (or RDELTA_CRASH_RUNS) is the number of SIGKILL runs, spread over the
scenarios (default 60; a longer mode is simply a larger number). The ENOSPC case
mounts a small tmpfs in a private mount namespace (unshare -m) and is skipped, with
a message, when not run as root. Prints 'N passed, M failed'."""
import argparse
import fcntl
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from hook_env import tool_for
from in_place_memory import memory_bounds
from journal_forge import journal_of
from sparse_files import MiB, extents, make_base, sparse_copy, state, write_at
from update_note import attributes_here, marker
from tally import check, summary


def scenarios(work, rng):
    """(name, old image, new file): overwrite+grow, delete (data moves back)+shrink,
    insertion near the front (long literals)+grow."""
    base = os.path.join(work, "base.img")
    make_base(base, rng)
    out = []
    new = sparse_copy(base, os.path.join(work, "grow.new"))
    with open(new, "r+b") as f:
        for _ in range(25):
            write_at(f, rng.randrange(0, 64 * MiB - 300000), rng.randbytes(rng.randrange(1, 300000)))
        f.seek(0, 2)
        f.write(rng.randbytes(2 * MiB + 123))
    out.append(("overwrite-grow", base, new))
    content = bytearray(open(base, "rb").read())
    del content[20 * MiB:25 * MiB + 77]
    del content[-3 * MiB:]
    content[1000:5000] = rng.randbytes(4000)
    new = os.path.join(work, "shrink.new")
    open(new, "wb").write(content)
    out.append(("delete-shrink", base, new))
    content = bytearray(open(base, "rb").read())
    content[8 * MiB:8 * MiB] = rng.randbytes(4099)
    new = os.path.join(work, "insert.new")
    open(new, "wb").write(content)
    out.append(("insert-grow", base, new))
    return out


class Tool:
    def __init__(self, rdelta, rdelta_test, env):
        self.rdelta, self.rdelta_test, self.env = rdelta, rdelta_test, env

    def run(self, *args, env=None, **kw):
        e = dict(self.env, **(env or {}))
        return subprocess.run([tool_for(env, self.rdelta, self.rdelta_test), *args], capture_output=True, text=True,
                              env=e, **kw)

    def popen(self, *args, env=None):
        e = dict(self.env, **(env or {}))
        return subprocess.Popen([tool_for(env, self.rdelta, self.rdelta_test), *args], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=e)


def make_delta(tool, old, new, delta, *extra):
    sig = delta + ".sig"
    r = tool.run("signature", "-f", old, sig)
    assert r.returncode == 0, r.stderr
    r = tool.run("delta", "-f", "--in-place-safe", *extra, sig, new, delta)
    assert r.returncode == 0, r.stderr


def crash_runs(tool, work, rng, runs):
    cases = scenarios(work, rng)
    batch_env = {"RDELTA_INPLACE_BATCH_BYTES": str(64 * 1024)}  # many batches: many crash points
    seen = {"old": 0, "new": 0, "journal": 0}
    for k, (name, old, new) in enumerate(cases):
        delta = os.path.join(work, name + ".delta")
        make_delta(tool, old, new, delta)
        img = os.path.join(work, name + ".img")
        old_state = state(old)
        sparse_copy(old, img)
        t0 = time.monotonic()
        r = tool.run("patch", "--in-place", img, delta, env=batch_env)
        clean = time.monotonic() - t0
        check(r.returncode == 0, f"{name}: clean in-place patch: {r.stderr}")
        new_state = state(img)
        check(open(img, "rb").read() == open(new, "rb").read(), f"{name}: clean in-place result equals the new file")
        check(not os.path.exists(journal_of(img)), f"{name}: no journal after a clean run")
        n = runs // len(cases) + (k < runs % len(cases))
        for i in range(n):
            sparse_copy(old, img)
            p = tool.popen("patch", "--in-place", img, delta, env=batch_env)
            time.sleep(rng.uniform(0, clean * 1.2))
            p.send_signal(signal.SIGKILL)
            p.wait()
            had_journal = os.path.exists(journal_of(img))
            seen["journal"] += had_journal
            if i % 2 == 0:
                r = tool.run("recover", img)
                check(r.returncode == 0, f"{name} run {i}: recover: {r.stderr}")
                got = state(img)
                check(got in (old_state, new_state), f"{name} run {i}: after recover the image is neither old nor new")
                seen["old" if got == old_state else "new"] += 1
            else:  # the next patch recovers by itself, then applies (or finds it applied)
                r = tool.run("patch", "--in-place", img, delta)
                check(r.returncode in (0, 106), f"{name} run {i}: patch after a crash: {r.returncode} {r.stderr}")
                check(state(img) == new_state, f"{name} run {i}: patch after a crash gives the new image")
                seen["new"] += 1
            check(not os.path.exists(journal_of(img)), f"{name} run {i}: journal left behind")
    print(f"crash runs: {runs}; a journal was present after {seen['journal']} kills; "
          f"recovered to old {seen['old']}, new {seen['new']}", flush=True)


def repeated_apply(tool, work, rng):
    cases = scenarios(work, rng)
    name, old, new = cases[0]
    delta = os.path.join(work, "twice.delta")
    make_delta(tool, old, new, delta)
    img = sparse_copy(old, os.path.join(work, "twice.img"))
    r = tool.run("patch", "--in-place", img, delta)
    check(r.returncode == 0 and "warning" not in r.stderr, f"repeat: first apply: {r.stderr}")
    once = state(img)
    r = tool.run("patch", "--in-place", img, delta)
    check(r.returncode == 0 and "already up to date" in r.stderr,
          f"repeat: second apply is a no-op (exit 0, up to date), got {r.returncode}: {r.stderr}")
    check(state(img) == once, "repeat: second apply leaves the image unchanged")
    # Without the manifest (removed), the delta is checked against the image itself:
    # its output is already there, so it is refused (106) and nothing is written.
    os.unlink(os.path.join(os.path.dirname(img), "." + os.path.basename(img) + ".rdelta-manifest"))
    r = tool.run("patch", "--in-place", img, delta)
    check(r.returncode == 106, f"repeat without manifest: exits 106, got {r.returncode}: {r.stderr}")
    check(state(img) == once, "repeat without manifest: the image is unchanged")
    # An image another process holds locked (a patch running) is not touched.
    with open(img, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for args in (("patch", "--in-place", img, delta), ("recover", img)):
            r = tool.run(*args)
            check(r.returncode == 100 and "locked" in r.stderr, f"locked image: {args[0]}: {r.returncode} {r.stderr}")
    check(state(img) == once, "locked image: unchanged")
    # Without a trailer: a warning that the result cannot be verified.
    plain = os.path.join(work, "plain.delta")
    make_delta(tool, old, new, plain, "--no-checksum")
    img = sparse_copy(old, os.path.join(work, "plain.img"))
    r = tool.run("patch", "--in-place", img, plain)
    check(r.returncode == 0 and "cannot be verified" in r.stderr and r.stderr.count("\n") == 1,
          f"no trailer: one warning line: {r.returncode} {r.stderr!r}")
    check(open(img, "rb").read() == open(new, "rb").read(), "no trailer: result")
    # A delta piped through standard input (spooled), compressed.
    gz = os.path.join(work, "twice.delta.zst")
    make_delta(tool, old, new, gz, "--zstd")
    img = sparse_copy(old, os.path.join(work, "pipe.img"))
    with open(gz, "rb") as f:
        r = tool.run("patch", "--in-place", img, "-", stdin=f)
    check(r.returncode == 0, f"stdin zstd delta: {r.stderr}")
    check(open(img, "rb").read() == open(new, "rb").read(), "stdin zstd delta: result")


def damaged_journals(tool, work, rng):
    name, old, new = scenarios(work, rng)[0]
    delta = os.path.join(work, "dmg.delta")
    make_delta(tool, old, new, delta)
    img = os.path.join(work, "dmg.img")
    old_state = state(old)
    env = {"RDELTA_INPLACE_BATCH_BYTES": "4096", "RDELTA_TEST_KILL_AFTER_BATCH": "3"}

    def interrupted():
        sparse_copy(old, img)
        r = tool.run("patch", "--in-place", img, delta, env=env)
        check(r.returncode == -signal.SIGKILL, f"hook kills after batch 3: {r.returncode} {r.stderr}")
        check(os.path.exists(journal_of(img)), "a hot journal is left")
        return state(img), open(journal_of(img), "rb").read()

    mid, jbytes = interrupted()
    check(mid != old_state, "the interrupted image is part new")
    r = tool.run("recover", img)
    check(r.returncode == 0 and "rolled back" in r.stderr, f"recover: {r.stderr}")
    check(state(img) == old_state, "recover restores the old image exactly")

    def damaged(label, mutate, want_rc, journal_stays):
        mid, jb = interrupted()
        with open(journal_of(img), "wb") as f:
            f.write(mutate(bytearray(jb)))
        r = tool.run("recover", img)
        check(r.returncode == want_rc, f"{label}: recover exits {want_rc}, got {r.returncode}: {r.stderr}")
        check(state(img) == mid, f"{label}: the image is left as it was")
        check(os.path.exists(journal_of(img)) == journal_stays, f"{label}: journal kept={journal_stays}")
        r = tool.run("patch", "--in-place", img, delta)
        if want_rc:
            check(r.returncode == want_rc, f"{label}: patch refuses too ({r.returncode}: {r.stderr})")
        if os.path.exists(journal_of(img)):
            os.unlink(journal_of(img))

    def flip(at):
        def f(b):
            b[at] ^= 0x40
            return b
        return f

    damaged("flipped record byte", flip(4096 + 60), 106, True)
    damaged("flipped record length", flip(4096 + 20), 106, True)
    damaged("torn record area", lambda b: b[:4096 + 50], 106, True)
    damaged("header never valid", lambda b: bytes(1024) + b[1024:], 0, False)


def journal_names(tool, work, rng):
    """The journal sits beside a symlink's target, and has a short name when
    .IMAGE.rdelta-journal would exceed NAME_MAX."""
    name, old, new = scenarios(work, rng)[0]
    delta = os.path.join(work, "names.delta")
    make_delta(tool, old, new, delta)
    env = {"RDELTA_INPLACE_BATCH_BYTES": "4096", "RDELTA_TEST_KILL_AFTER_BATCH": "2"}
    os.makedirs(os.path.join(work, "target"))
    os.makedirs(os.path.join(work, "links"))
    real = sparse_copy(old, os.path.join(work, "target", "disk.img"))
    link = os.path.join(work, "links", "disk.img")
    os.symlink(real, link)
    r = tool.run("patch", "--in-place", link, delta, env=env)
    check(r.returncode == -signal.SIGKILL, f"symlink: interrupted ({r.returncode})")
    check(os.path.exists(journal_of(real)) and not os.path.exists(journal_of(link)),
          f"symlink: the journal is beside the target: {os.listdir(os.path.join(work, 'target'))}")
    r = tool.run("recover", link)
    check(r.returncode == 0 and state(real) == state(old), f"symlink: recovered through the link: {r.stderr}")
    long_name = os.path.join(work, "d" * 250 + ".img")
    sparse_copy(old, long_name)
    r = tool.run("patch", "--in-place", long_name, delta, env=env)
    short = [f for f in os.listdir(work) if f.startswith(".rdelta-journal-")]
    check(len(short) == 1 and len(short[0]) == len(".rdelta-journal-") + 16, f"long name: short journal name {short}")
    r = tool.run("patch", "--in-place", long_name, delta)
    check(r.returncode == 0 and "rolled back" in r.stderr, f"long name: the next patch rolls back first: {r.stderr}")
    check(open(long_name, "rb").read() == open(new, "rb").read(), "long name: then applies the delta")
    check(not [f for f in os.listdir(work) if f.startswith(".rdelta-journal-")], "long name: journal removed")


def read_while_stopped(tool, args, env, ready, img, sig):
    """Start `rdelta ARGS`, stop it (SIGSTOP) once ready() holds, run a signature of
    `img` meanwhile, let it go on; returns (whether it was stopped while running,
    the signature's result, the finished process)."""
    p = tool.popen(*args, env=env)
    deadline = time.monotonic() + 30
    while p.poll() is None and not ready() and time.monotonic() < deadline:
        pass
    p.send_signal(signal.SIGSTOP)
    running = p.poll() is None and ready()
    r = tool.run("signature", img, sig)
    p.send_signal(signal.SIGCONT)
    p.wait()
    return running, r, p


def half_patched_readers(tool, work, rng):
    """A file with the journal of an in-place patch beside it is not an input: while
    the patch runs (it holds the lock) or after it was killed, signature, delta and
    patch refuse it (100), naming the journal and `rdelta recover`; once recovered
    it reads again. A journal someone else owns does not count."""
    name, old, new = scenarios(work, rng)[0]
    delta = os.path.join(work, "readers.delta")
    make_delta(tool, old, new, delta)
    img = sparse_copy(old, os.path.join(work, "readers.img"))
    sig = os.path.join(work, "readers.sig")
    r = tool.run("patch", "--in-place", img, delta,
                 env={"RDELTA_INPLACE_BATCH_BYTES": "4096", "RDELTA_TEST_KILL_AFTER_BATCH": "2"})
    check(r.returncode == -signal.SIGKILL and os.path.exists(journal_of(img)), f"readers: interrupted ({r.returncode})")
    for args in (["signature", img, sig], ["delta", delta + ".sig", img, sig], ["patch", img, delta, sig]):
        r = tool.run(*args)
        check(r.returncode == 100 and "interrupted" in r.stderr and journal_of(img) in r.stderr
              and "rdelta recover" in r.stderr and not os.path.exists(sig),
              f"readers: {args[0]} of a half-patched file is refused ({r.returncode}, {r.stderr!r})")
    r = tool.run("recover", img)
    r = tool.run("signature", img, sig)
    check(r.returncode == 0, f"readers: after recover the file reads again ({r.stderr!r})")
    os.remove(sig)
    if os.geteuid() == 0:
        open(journal_of(img), "wb").close()
        os.chown(journal_of(img), 65534, 65534)
        r = tool.run("signature", img, sig)
        check(r.returncode == 0, f"readers: a journal someone else owns does not stop reading ({r.stderr!r})")
        os.remove(sig)
        os.remove(journal_of(img))
    # While a patch runs: stopped once its journal exists.
    running, r, p = read_while_stopped(tool, ("patch", "--in-place", img, delta), {"RDELTA_INPLACE_BATCH_BYTES": "4096"},
                                       lambda: os.path.exists(journal_of(img)), img, sig)
    if running:
        check(r.returncode == 100 and "another rdelta is updating it" in r.stderr,
              f"readers: a file being patched in place is refused ({r.returncode}, {r.stderr!r})")
    else:
        print("note: the in-place patch ended before it could be stopped; the running case was not tested")
    check(p.returncode == 0 and open(img, "rb").read() == open(new, "rb").read(), "readers: the stopped patch completed")


def other_names(tool, work, rng):
    """The image itself says it is half patched: renamed after the crash, or reached
    through a hard link in another folder, it is still refused as an input, and
    `recover` or the next `patch --in-place` under the new name finds the journal.
    A copy that kept the attribute is another file and reads."""
    name, old, new = scenarios(work, rng)[0]
    delta = os.path.join(work, "names.delta")
    make_delta(tool, old, new, delta)
    sig = os.path.join(work, "names.sig")
    kill = {"RDELTA_INPLACE_BATCH_BYTES": "4096", "RDELTA_TEST_KILL_AFTER_BATCH": "2"}
    os.makedirs(os.path.join(work, "elsewhere"))
    for how in ("recover", "patch"):
        img = sparse_copy(old, os.path.join(work, "names.img"))
        r = tool.run("patch", "--in-place", img, delta, env=kill)
        journal = journal_of(img)
        if not check(r.returncode == -signal.SIGKILL and os.path.exists(journal), f"names: interrupted ({r.returncode})"):
            return
        if not attributes_here(work):
            print("note: this file system keeps no user attributes; the other-names case was not tested")
            os.remove(journal)
            return
        check(marker(img) is not None, "names: the half-patched file carries the note")
        moved = os.path.join(work, "names.renamed")
        os.rename(img, moved)
        link = os.path.join(work, "elsewhere", "link")
        os.link(moved, link)
        for path in (moved, link):
            r = tool.run("signature", path, sig)
            check(r.returncode == 100 and "interrupted" in r.stderr and journal in r.stderr
                  and f"rdelta recover {path}" in r.stderr and not os.path.exists(sig),
                  f"names: a half-patched file under another name is refused ({r.returncode}, {r.stderr!r})")
        copy = os.path.join(work, "names.copy")
        shutil.copy2(moved, copy)  # attributes too
        r = tool.run("signature", copy, sig)
        check(r.returncode == 0, f"names: a copy with the attribute is another file ({r.stderr!r})")
        for n in (copy, sig):
            if os.path.exists(n):
                os.remove(n)
        if how == "recover":
            r = tool.run("recover", link)
            check(r.returncode == 0 and "rolled back" in r.stderr and state(moved) == state(old),
                  f"names: recover through another hard link rolls back ({r.returncode}, {r.stderr!r})")
        else:
            r = tool.run("patch", "--in-place", moved, delta)
            check(r.returncode == 0 and open(moved, "rb").read() == open(new, "rb").read(),
                  f"names: patch --in-place of the renamed file rolls back first, then patches ({r.stderr!r})")
        check(not os.path.exists(journal) and not os.path.exists(journal_of(moved)) and marker(moved) is None,
              f"names ({how}): no journal and no note left")
        r = tool.run("signature", link, sig)
        check(r.returncode == 0, f"names ({how}): the file reads again ({r.stderr!r})")
        for n in (moved, link, sig):
            os.remove(n)
    # A note naming another file's journal (whoever can write a file can set one)
    # is not followed: that journal is neither replayed into this file nor deleted.
    other = sparse_copy(old, os.path.join(work, "names.other"))
    r = tool.run("patch", "--in-place", other, delta, env=kill)
    planted = sparse_copy(old, os.path.join(work, "names.planted"))
    st = os.stat(planted)
    os.setxattr(planted, "user.rdelta.unfinished", f"1 journal {st.st_dev} {st.st_ino} {journal_of(other)}".encode())
    r = tool.run("recover", planted)
    check(r.returncode == 0 and "nothing to do" in r.stderr and state(planted) == state(old)
          and os.path.exists(journal_of(other)) and marker(planted) is None,
          f"names: a note naming another file's journal is not followed ({r.returncode}, {r.stderr!r})")
    r = tool.run("signature", planted, sig)
    check(r.returncode == 0, f"names: nor does it stop the file being read ({r.stderr!r})")
    r = tool.run("recover", other)
    check(r.returncode == 0 and state(other) == state(old), f"names: the other file recovers ({r.stderr!r})")


def unjournaled(tool, work, rng):
    """`--no-journal` keeps nothing to restore from: killed midway, the image says
    on itself that it is torn, and signature, delta, patch, recover and the next
    `patch --in-place` refuse it (100), changing nothing, until a copy is put back
    as a new file. A run that finishes leaves no note."""
    if not attributes_here(work):
        print("note: this file system keeps no user attributes; the --no-journal case was not run")
        return
    name, old, new = scenarios(work, rng)[0]
    delta = os.path.join(work, "nj.delta")
    make_delta(tool, old, new, delta)
    img = sparse_copy(old, os.path.join(work, "nj.img"))
    sig = os.path.join(work, "nj.sig")
    r = tool.run("patch", "--in-place", "--no-journal", img, delta)
    check(r.returncode == 0 and open(img, "rb").read() == open(new, "rb").read() and marker(img) is None,
          f"no journal: a finished run gives the new file and leaves no note ({r.stderr!r})")
    sparse_copy(old, img)
    r = tool.run("patch", "--in-place", "--no-journal", img, delta,
                 env={"RDELTA_INPLACE_BATCH_BYTES": "4096", "RDELTA_TEST_KILL_AFTER_BATCH": "2"})
    torn = state(img)
    if not check(r.returncode == -signal.SIGKILL and torn not in (state(old), state(new)) and marker(img) is not None,
                 f"no journal: killed midway, the image is torn and says so ({r.returncode})"):
        return
    for args in (["signature", img, sig], ["delta", delta + ".sig", img, sig], ["patch", img, delta, sig],
                 ["recover", img], ["patch", "--in-place", img, delta], ["patch", "--in-place", "--no-journal", img, delta]):
        r = tool.run(*args)
        check(r.returncode == 100 and "without a journal" in r.stderr and "cp --remove-destination" in r.stderr
              and not os.path.exists(sig) and state(img) == torn,
              f"no journal: {' '.join(args[:-2] if args[0] != 'recover' else args[:1])} of a torn image is refused "
              f"({r.returncode}, {r.stderr!r})")
    subprocess.run(["cp", "--remove-destination", old, img], check=True)
    r = tool.run("signature", img, sig)
    check(r.returncode == 0, f"no journal: a copy put back as a new file reads ({r.stderr!r})")
    os.remove(sig)
    # While such a patch runs (stopped once its note is there), the image is its.
    running, r, p = read_while_stopped(tool, ("patch", "--in-place", "--no-journal", img, delta),
                                       {"RDELTA_INPLACE_BATCH_BYTES": "4096"}, lambda: marker(img) is not None, img, sig)
    if running:
        check(r.returncode == 100 and "another rdelta is patching it in place without a journal" in r.stderr,
              f"no journal: an image being patched without a journal is refused ({r.returncode}, {r.stderr!r})")
    else:
        print("note: the --no-journal patch ended before it could be stopped; the running case was not tested")
    check(p.returncode == 0 and open(img, "rb").read() == open(new, "rb").read() and marker(img) is None,
          "no journal: the stopped patch completed and left no note")


def enospc(tool, work, rng, rdelta, inner):
    """Outer: re-run this script in a private mount namespace. Inner: on a small tmpfs."""
    if not inner:
        if os.geteuid() != 0 or not shutil.which("unshare"):
            print("SKIP: ENOSPC case needs root (mount -t tmpfs in unshare -m)", flush=True)
            return
        r = subprocess.run(["unshare", "-m", sys.executable, __file__, "--rdelta", rdelta, "--rdelta-test",
                            tool.rdelta_test, "--enospc-inner", work], capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        if "SKIP" in r.stdout:
            return
        check(r.returncode == 0, f"ENOSPC case: {r.stderr}")
        return
    mnt = os.path.join(work, "mnt")
    os.makedirs(mnt, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", mnt]).returncode != 0:
        print("SKIP: cannot mount a tmpfs", flush=True)
        return
    try:
        for label, data_mib, change in (("image write", 4, "fill-holes"), ("journal write", 12, "overwrite")):
            old = os.path.join(work, label.replace(" ", "_") + ".old")
            make_base(old, rng, 64 * MiB, data_mib)
            new = sparse_copy(old, old + ".new")
            size, ext = extents(old)
            with open(new, "r+b") as f:
                if change == "fill-holes":  # 18 MiB of new data where there were holes
                    for i in range(18):
                        write_at(f, 40 * MiB + i * MiB, rng.randbytes(MiB))
                else:  # the data extents overwritten: the journal needs their old bytes
                    for a, b in ext:
                        write_at(f, a, rng.randbytes(b - a))
            delta = old + ".delta"
            make_delta(tool, old, new, delta)
            img = sparse_copy(old, os.path.join(mnt, "img"))
            before = state(img)
            filler = os.path.join(mnt, "filler")
            if change == "overwrite":
                # Leave room for half the old data only, whatever the random layout
                # gave: the journal, which must save all of it, then runs out.
                data = sum(b - a for a, b in ext)
                vfs = os.statvfs(mnt)
                spare = vfs.f_bavail * vfs.f_frsize - data // 2
                if spare > 0:
                    with open(filler, "wb") as f:
                        os.posix_fallocate(f.fileno(), 0, spare)
            r = tool.run("patch", "--in-place", img, delta, env={"RDELTA_INPLACE_BATCH_BYTES": str(MiB)})
            if os.path.exists(filler):
                os.unlink(filler)
            check(r.returncode == 100 and "No space left" in r.stderr,
                  f"ENOSPC ({label}): exit 100 naming the error, got {r.returncode}: {r.stderr}")
            check(state(img) == before, f"ENOSPC ({label}): image rolled back exactly")
            check(not os.path.exists(journal_of(img)), f"ENOSPC ({label}): no journal left")
            os.unlink(img)
    finally:
        subprocess.run(["umount", mnt])
    sys.exit(summary())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdelta-test", required=True, help="the build with the test hooks")
    ap.add_argument("--runs", type=int, default=int(os.environ.get("RDELTA_CRASH_RUNS", "60")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("RDELTA_CRASH_SEED", str(int(time.time())))))
    ap.add_argument("--enospc-inner")
    a = ap.parse_args()
    rdelta = os.path.abspath(a.rdelta)
    tool = Tool(rdelta, os.path.abspath(a.rdelta_test), {k: v for k, v in os.environ.items() if not k.startswith("RDELTA_")})
    rng = random.Random(a.seed)
    if a.enospc_inner:
        enospc(tool, a.enospc_inner, rng, rdelta, True)
        return
    print(f"seed {a.seed} (RDELTA_CRASH_SEED={a.seed} repeats this run)", flush=True)
    work = tempfile.mkdtemp(prefix="rdelta-crash-")
    try:
        steps = (("r", lambda d: repeated_apply(tool, d, rng)),
                 ("d", lambda d: damaged_journals(tool, d, rng)),
                 ("n", lambda d: journal_names(tool, d, rng)),
                 ("h", lambda d: half_patched_readers(tool, d, rng)),
                 ("o", lambda d: other_names(tool, d, rng)),
                 ("j", lambda d: unjournaled(tool, d, rng)),
                 ("m", lambda d: memory_bounds(tool, d, rng, make_delta)),
                 ("e", lambda d: enospc(tool, d, rng, rdelta, False)),
                 ("c", lambda d: crash_runs(tool, d, rng, a.runs)))
        for sub, step in steps:  # each in its own folder
            os.makedirs(os.path.join(work, sub))
            step(os.path.join(work, sub))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(summary())


if __name__ == "__main__":
    main()
