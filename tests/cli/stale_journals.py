"""Journals that belong to an earlier update of the image (captured during a patch
and put back later, or left by a run killed just before deleting them), damaged
journal headers, and a journal's name moved during a run. Called by trust_test.py."""
import os
import shutil
import signal
import subprocess
import time

from journal_forge import (COMMITTED, MiB, as_user, content, journal_bytes, journal_of, make_delta, note_of, remove,
                           set_note)
from tally import check


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
    """`patch --in-place IMAGE DELTA` (by rdelta-test, which obeys the hooks), stopped
    after its second journal batch while move() runs: the CompletedProcess-like
    (returncode, stderr)."""
    env = dict(os.environ, RDELTA_INPLACE_BATCH_BYTES="4096", RDELTA_TEST_STOP_AFTER_BATCH="2")
    p = subprocess.Popen([tool.rdelta_test, "patch", "--in-place", img, delta], env=env, stderr=subprocess.PIPE,
                         text=True)
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
    sig = os.path.join(work, "hdr.sig")
    r = tool.run("signature", img, sig)
    check(r.returncode == 100 and journal_of(img) in r.stderr and not os.path.exists(sig),
          f"the image beside a damaged journal is refused as an input ({r.returncode}, {r.stderr.strip()!r})")
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
