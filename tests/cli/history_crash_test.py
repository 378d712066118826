#!/usr/bin/env python3
"""Crash injection for restore points: SIGKILL during `patch --in-place --keep-history`
(at a random moment, after a journal batch, or right after a change to the history
folder), during `prune` (random moment or after each rename/unlink it makes) and
during `recover` of a killed patch. After each kill `rdelta recover` runs, then the
image must be exactly the old or the new night, no point may be lost or duplicated,
every point `rdelta history --json` lists must restore byte for byte to the night
the test kept for it (a point's time is its night's mtime, set before each patch),
and `verify --history` must pass. Needs only rdelta, and rdelta-test for the runs that
set a kill after a journal batch or a history step (hook_env.py).

  history_crash_test.py --rdelta PATH --rdelta-test PATH [--runs N] [--seed S]

--runs (or RDELTA_HISTORY_CRASH_RUNS) is the number of SIGKILL runs, spread over
the scenarios (default 60). Prints 'N passed, M failed'."""
import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from hook_env import tool_for
from tally import check, summary

MiB = 1 << 20
KiB = 1 << 10
# Night k's modification time: noon on 2024-01-01 + DAYS[k] days (ISO weeks start
# on 2024-01-01, -08, -15), so weekly pruning keeps one point of several per week.
DAYS = [0, 2, 4, 7, 9, 11, 14, 16, 18]
NIGHTS = len(DAYS)
PATCH_AT = 3  # patch and recover runs start with the image at night 3 (points 0..2)
PRUNE_AT = NIGHTS - 1  # prune runs start with points 0..7, the image at night 8
# (rule, the nights the test expects it to keep): filled in by a clean prune.
POLICIES = (["--keep-weekly", "3"], ["--keep-last", "3", "--keep-weekly", "3"],
            ["--keep-last", "1", "--keep-monthly", "1"], ["--keep-last", "2", "--keep-weekly", "2"])


def day_time(k):
    return int(time.mktime((2024, 1, 1 + DAYS[k], 12, 0, 0, 0, 0, -1)))


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


def beside(img, suffix):
    d, b = os.path.split(img)
    return os.path.join(d, "." + b + suffix)


def write_sparse(fd, data):
    """Write `data` from offset 0 of an open file, leaving its zero 64 KiB blocks as holes."""
    os.ftruncate(fd, 0)
    step = 64 * KiB
    zero = bytes(step)
    for at in range(0, len(data), step):
        block = data[at:at + step]
        if block != zero[:len(block)]:
            os.pwrite(fd, block, at)
    os.ftruncate(fd, len(data))


def digest(data):
    return hashlib.blake2b(data).hexdigest()


def file_digest(path):
    with open(path, "rb") as f:
        return digest(f.read())


class Nights:
    """The nights of an image (each kept as bytes and a file), the deltas between
    them, and the image with its history put back to a saved state for each run.
    The image keeps its inode throughout: points name the file they belong to."""

    def __init__(self, tool, work, rng):
        self.tool, self.work = tool, work
        data = bytearray(12 * MiB)
        for _ in range(16):
            n = rng.randrange(64 * KiB, 512 * KiB)
            pos = rng.randrange(0, len(data) - n)
            data[pos:pos + n] = rng.randbytes(n)
        self.data = [bytes(data)]
        for k in range(1, NIGHTS):  # a few MiB change each night; it grows, shrinks, punches zeros
            for _ in range(rng.randrange(3, 5)):
                n = rng.randrange(512 * KiB, 2 * MiB)
                pos = rng.randrange(0, len(data) - n)
                data[pos:pos + n] = rng.randbytes(n)
            if k % 3 == 1:
                data += rng.randbytes(rng.randrange(1, 400 * KiB))
            elif k % 3 == 2:
                del data[-rng.randrange(1, 400 * KiB):]
            if rng.random() < 0.5:
                n = rng.randrange(64 * KiB, 512 * KiB)
                pos = rng.randrange(0, len(data) - n)
                data[pos:pos + n] = bytes(n)
            self.data.append(bytes(data))
        self.digests = [digest(d) for d in self.data]
        self.by_time = {day_time(k): k for k in range(NIGHTS)}
        os.makedirs(os.path.join(work, "nights"))
        self.files = []
        for k, d in enumerate(self.data):
            path = os.path.join(work, "nights", str(k))
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            write_sparse(fd, d)
            os.close(fd)
            self.files.append(path)
        self.deltas = []
        for k in range(NIGHTS - 1):
            sig, delta = os.path.join(work, f"nights/{k}.sig"), os.path.join(work, f"nights/{k}.delta")
            r = tool.run("signature", self.files[k], sig)
            assert r.returncode == 0, r.stderr
            r = tool.run("delta", "--in-place-safe", sig, self.files[k + 1], delta)
            assert r.returncode == 0, r.stderr
            self.deltas.append(delta)
        self.img = os.path.join(work, "img", "disk.img")
        os.makedirs(os.path.dirname(self.img))
        open(self.img, "wb").close()
        self.hist = beside(self.img, ".rdelta-history")
        self.saved = {}

    def put_back(self, night, saved=None):
        """The image as night `night` (same inode, that night's mtime), and the
        history as it was saved under `saved` (none: no history)."""
        for name in os.listxattr(self.img):
            if name.startswith("user.rdelta"):
                os.removexattr(self.img, name)
        fd = os.open(self.img, os.O_WRONLY)
        write_sparse(fd, self.data[night])
        os.close(fd)
        for extra in (".rdelta-journal", ".rdelta-manifest"):
            if os.path.exists(beside(self.img, extra)):
                os.unlink(beside(self.img, extra))
        if saved is not None:
            shutil.copy2(self.saved[saved] + ".manifest", beside(self.img, ".rdelta-manifest"))
        self.touch(night)
        if os.path.exists(self.hist):
            shutil.rmtree(self.hist)
        if saved is not None:
            os.mkdir(self.hist, 0o700)
            for name in os.listdir(self.saved[saved]):
                shutil.copy2(os.path.join(self.saved[saved], name), os.path.join(self.hist, name))

    def touch(self, night):
        """Night's mtime. The manifest, which the test put back with the image's
        bytes, takes the image's new ctime, as if rdelta had written both."""
        os.utime(self.img, (day_time(night), day_time(night)))
        manifest = beside(self.img, ".rdelta-manifest")
        if os.path.exists(manifest):
            st = os.stat(self.img)
            with open(manifest, "r+b") as f:
                f.seek(40)
                f.write((st.st_ctime_ns // 10**9).to_bytes(8, "big") + (st.st_ctime_ns % 10**9).to_bytes(8, "big"))

    def save(self, name):
        dst = os.path.join(self.work, "saved-" + name)
        shutil.copytree(self.hist, dst)
        shutil.copy2(beside(self.img, ".rdelta-manifest"), dst + ".manifest")
        self.saved[name] = dst

    def patch(self, night, env=None):
        """Apply night -> night+1 with the image's mtime set to night's."""
        self.touch(night)
        return self.tool.run("patch", "--in-place", "--keep-history", self.img, self.deltas[night], env=env)

    def popen_patch(self, night, env=None):
        self.touch(night)
        return self.tool.popen("patch", "--in-place", "--keep-history", self.img, self.deltas[night], env=env)

    def build(self):
        """Saved states: 'patch' (the image at PATCH_AT, points 0..PATCH_AT-1) and
        'prune' (the image at PRUNE_AT, points 0..PRUNE_AT-1)."""
        self.put_back(0)
        for k in range(PRUNE_AT):
            r = self.patch(k)
            assert r.returncode == 0, f"building the history, night {k}: {r.stderr}"
            self.touch(k + 1)
            if k + 1 == PATCH_AT:
                self.save("patch")
        self.save("prune")

    def night_of_image(self):
        with open(self.img, "rb") as f:
            d = digest(f.read())
        return self.digests.index(d) if d in self.digests else None

    def points(self, label):
        """The nights of the listed points, newest first (None when unreadable)."""
        r = self.tool.run("history", "--json", self.img)
        if not check(r.returncode == 0, f"{label}: history --json: {r.returncode} {r.stderr}"):
            return None
        listed = json.loads(r.stdout)["points"]
        nights = [self.by_time.get(p["time_s"]) for p in listed]
        check(None not in nights, f"{label}: every point's time is a night's: {[p['time_s'] for p in listed]}")
        return nights

    def restores(self, label, nights, recovered=False):
        """Every listed point restores to its night; verify --history passes. After
        a recovery it may complain of the manifest only: a patch finished by
        recovery publishes no manifest, so the old one no longer matches (a rollback
        moves the change time only, which verify passes); its points must all match."""
        out = os.path.join(self.work, "restored")
        ok = True
        for number, night in enumerate(nights, 1):
            if os.path.exists(out):
                os.unlink(out)
            r = self.tool.run("restore", self.img, str(number), out)
            ok &= check(r.returncode == 0, f"{label}: restore point {number} (night {night}): {r.returncode} {r.stderr}")
            if r.returncode == 0:
                ok &= check(night is not None and file_digest(out) == self.digests[night],
                            f"{label}: point {number} restores to night {night}")
        if os.path.exists(out):
            os.unlink(out)
        r = self.tool.run("verify", "--history", self.img)
        manifest_only = (r.returncode == 106 and "changed since its manifest" in r.stderr
                         and "damaged" not in r.stderr and f"{len(nights)} restore points match" in r.stderr)
        ok &= check(r.returncode == 0 or recovered and manifest_only,
                    f"{label}: verify --history: {r.returncode} {r.stderr}")
        return ok

    def recovered(self, label):
        """recover, then: which night the image is, and the listed points' nights."""
        r = self.tool.run("recover", self.img)
        check(r.returncode == 0, f"{label}: recover: {r.returncode} {r.stderr}")
        check(not os.path.exists(beside(self.img, ".rdelta-journal")), f"{label}: no journal after recover")
        return self.night_of_image(), self.points(label)


def patch_runs(n, nights, rng, stats):
    """SIGKILL while night PATCH_AT is patched: at a random moment, after journal
    batch N (64 KiB batches), or after the journal was moved into the history."""
    batch = {"RDELTA_INPLACE_BATCH_BYTES": str(64 * KiB)}
    nights.put_back(PATCH_AT, "patch")
    t0 = time.monotonic()
    r = nights.patch(PATCH_AT, env=batch)
    clean = time.monotonic() - t0
    check(r.returncode == 0, f"patch: clean run: {r.stderr}")
    image, points = nights.recovered("patch: clean run")
    check(image == PATCH_AT + 1 and points == list(range(PATCH_AT, -1, -1)), f"patch: clean run: {image} {points}")
    for i in range(n):
        label = f"patch run {i}"
        nights.put_back(PATCH_AT, "patch")
        how = i % 3
        if how == 0:
            p = nights.popen_patch(PATCH_AT, env=batch)
            time.sleep(rng.uniform(0, clean * 1.2))
            p.send_signal(signal.SIGKILL)
            p.wait()
            label += " (random moment)"
        elif how == 1:
            at = rng.randrange(1, 60)
            r = nights.patch(PATCH_AT, env=dict(batch, RDELTA_TEST_KILL_AFTER_BATCH=str(at)))
            label += f" (after batch {at}, exit {r.returncode})"
        else:  # committed: killed just before, or just after, the journal moves into the history
            step = 1 + (i // 3) % 2
            r = nights.patch(PATCH_AT, env={"RDELTA_TEST_KILL_AT_HISTORY_STEP": str(step)})
            check(r.returncode == -signal.SIGKILL, f"{label}: killed at history step {step} ({r.returncode})")
            label += f" (committed, killed {'before' if step == 1 else 'after'} moving the journal)"
        stats["journal"] += os.path.exists(beside(nights.img, ".rdelta-journal"))
        image, points = nights.recovered(label)
        if not check(image in (PATCH_AT, PATCH_AT + 1), f"{label}: the image is neither old nor new ({image})"):
            continue
        stats["old" if image == PATCH_AT else "new"] += 1
        want = list(range(image - 1, -1, -1))  # the new night brings night PATCH_AT's point
        check(points == want, f"{label}: points {points}, want {want} for the image at night {image}")
        if points:
            nights.restores(label, points, recovered=True)
        if image == PATCH_AT and i % 2:  # the patch again, after the crash, keeps its point
            r = nights.patch(PATCH_AT)
            check(r.returncode == 0, f"{label}: patch again: {r.stderr}")
            check(nights.points(label + ", patched again") == list(range(PATCH_AT, -1, -1)),
                  f"{label}: patched again: one point per night")


def recover_runs(n, nights, rng, stats):
    """SIGKILL while `recover` rolls back (or finishes) a killed patch."""
    batch = {"RDELTA_INPLACE_BATCH_BYTES": str(64 * KiB)}

    def killed_patch(i):
        """A patch killed before its commit (a journal to roll back) or, every
        third run, after it (a committed journal that recovery keeps as a point)."""
        nights.put_back(PATCH_AT, "patch")
        if i % 3 == 2:
            env = {"RDELTA_TEST_KILL_AT_HISTORY_STEP": "1"}
        else:
            env = dict(batch, RDELTA_TEST_KILL_AFTER_BATCH=str(rng.randrange(2, 40)))
        r = nights.patch(PATCH_AT, env=env)
        return r.returncode == -signal.SIGKILL and os.path.exists(beside(nights.img, ".rdelta-journal"))

    while not killed_patch(0):
        pass
    t0 = time.monotonic()
    r = nights.tool.run("recover", nights.img)
    clean = max(time.monotonic() - t0, 0.005)
    check(r.returncode == 0, f"recover: clean run: {r.stderr}")
    for i in range(n):
        label = f"recover run {i}"
        if not killed_patch(i):
            nights.recovered(label + " (the patch finished)")
            continue
        if i % 3 == 2 and i % 2:  # recovery killed just before or after it moves the journal
            step = rng.choice((1, 2))
            r = nights.tool.run("recover", nights.img, env={"RDELTA_TEST_KILL_AT_HISTORY_STEP": str(step)})
            check(r.returncode == -signal.SIGKILL, f"{label}: recover killed at history step {step} ({r.returncode})")
            label += f" (committed journal, recover killed at history step {step})"
        else:
            p = nights.tool.popen("recover", nights.img)
            time.sleep(rng.uniform(0, clean * 1.2))
            p.send_signal(signal.SIGKILL)
            p.wait()
            stats["recover killed"] += p.returncode == -signal.SIGKILL
            label += " (committed journal)" if i % 3 == 2 else " (journal to roll back)"
        image, points = nights.recovered(label)
        if not check(image in (PATCH_AT, PATCH_AT + 1), f"{label}: the image is neither old nor new ({image})"):
            continue
        want = list(range(image - 1, -1, -1))
        check(points == want, f"{label}: points {points}, want {want} for the image at night {image}")
        if points:
            nights.restores(label, points, recovered=True)


def prune_runs(n, nights, rng, stats):
    """SIGKILL while `prune` merges and drops points: at a random moment, or right
    after each change it makes to the folder (staging file synced, renamed over the
    kept point, each dropped point deleted)."""
    original = list(range(PRUNE_AT - 1, -1, -1))
    expected, clean, steps = {}, {}, {}
    for k, rule in enumerate(POLICIES):
        nights.put_back(PRUNE_AT, "prune")
        t0 = time.monotonic()
        r = nights.tool.run("prune", *rule, nights.img)
        clean[k] = time.monotonic() - t0
        check(r.returncode == 0, f"prune {rule}: clean run: {r.stderr}")
        expected[k] = nights.points(f"prune {rule}")
        check(expected[k] and len(expected[k]) < len(original), f"prune {rule}: drops points: {expected[k]}")
        nights.restores(f"prune {rule}: clean run", expected[k])
        # How many changes it makes: killed after step s, it must not finish.
        steps[k] = 1
        while True:
            nights.put_back(PRUNE_AT, "prune")
            r = nights.tool.run("prune", *rule, nights.img, env={"RDELTA_TEST_KILL_AT_HISTORY_STEP": str(steps[k])})
            if r.returncode != -signal.SIGKILL:
                break
            steps[k] += 1
        steps[k] -= 1
        print(f"prune {' '.join(rule)}: keeps nights {expected[k]}, {steps[k]} folder changes, "
              f"{clean[k] * 1000:.0f} ms", flush=True)
    check(any(s > 3 for s in steps.values()), f"some rule merges points (folder changes {steps})")
    # Killed after every change of every rule, then n times at a random moment.
    runs = [(k, s) for k in range(len(POLICIES)) for s in range(1, steps[k] + 1)] + [(None, None)] * n
    for i, (k, s) in enumerate(runs):
        nights.put_back(PRUNE_AT, "prune")
        if k is not None:
            r = nights.tool.run("prune", *POLICIES[k], nights.img, env={"RDELTA_TEST_KILL_AT_HISTORY_STEP": str(s)})
            check(r.returncode == -signal.SIGKILL, f"prune killed after step {s}: {r.returncode}")
            label = f"prune run {i} ({' '.join(POLICIES[k])}, killed after folder change {s})"
        else:
            k = rng.randrange(len(POLICIES))
            p = nights.tool.popen("prune", *POLICIES[k], nights.img)
            time.sleep(rng.uniform(0, clean[k] * 1.2))
            p.send_signal(signal.SIGKILL)
            p.wait()
            stats["prune killed"] += p.returncode == -signal.SIGKILL
            label = f"prune run {i} ({' '.join(POLICIES[k])}, random moment)"
        image, points = nights.recovered(label)
        check(image == PRUNE_AT, f"{label}: prune changed the image ({image})")
        if points is None:
            continue
        check(set(expected[k]) <= set(points) <= set(original) and points == sorted(points, reverse=True),
              f"{label}: points {points}: every kept one ({expected[k]}) is there, no other")
        nights.restores(label, points)
        r = nights.tool.run("prune", *POLICIES[k], nights.img)
        check(r.returncode == 0, f"{label}: prune again: {r.returncode} {r.stderr}")
        again = nights.points(label + ", pruned again")
        check(again == expected[k], f"{label}: pruned again: {again}, want {expected[k]}")
        if again != points:
            nights.restores(label + ", pruned again", again)


def tail_hole(tool, work, rng):
    """An image whose size is not a whole number of blocks and that ends in a hole
    (as `truncate -s` leaves it): the journal's hole record stops at the old end,
    so the point restores and a patch killed midway rolls back."""
    folder = os.path.join(work, "tail")
    os.makedirs(folder)
    old = bytearray(3 * MiB + 1234)
    old[:MiB] = rng.randbytes(MiB)
    new = bytearray(old)
    new[-100000:-50000] = rng.randbytes(50000)
    new += rng.randbytes(5000)
    paths = [os.path.join(folder, n) for n in ("old", "new", "sig", "delta", "img", "out")]
    for path, data in zip(paths, (old, new)):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        write_sparse(fd, data)
        os.close(fd)
    tool.run("signature", paths[0], paths[2])
    tool.run("delta", "--in-place-safe", paths[2], paths[1], paths[3])
    img, out = paths[4], paths[5]
    for kill in (None, "1"):
        if os.path.exists(img):
            os.unlink(img)
        shutil.rmtree(beside(img, ".rdelta-history"), ignore_errors=True)
        fd = os.open(img, os.O_RDWR | os.O_CREAT, 0o644)
        write_sparse(fd, old)
        os.close(fd)
        env = {"RDELTA_INPLACE_BATCH_BYTES": "4096", "RDELTA_TEST_KILL_AFTER_BATCH": kill} if kill else {}
        r = tool.run("patch", "--in-place", "--keep-history", img, paths[3], env=env)
        if kill:
            check(r.returncode == -signal.SIGKILL, f"tail hole: killed after batch {kill} ({r.returncode})")
            r = tool.run("recover", img)
            check(r.returncode == 0 and "rolled back" in r.stderr and open(img, "rb").read() == old,
                  f"tail hole: the killed patch rolls back ({r.returncode}, {r.stderr!r})")
            continue
        check(r.returncode == 0 and open(img, "rb").read() == new, f"tail hole: patch ({r.stderr!r})")
        r = tool.run("restore", img, "1", out)
        check(r.returncode == 0 and open(out, "rb").read() == old,
              f"tail hole: the point restores the old image ({r.returncode}, {r.stderr!r})")
        r = tool.run("verify", "--history", img)
        check(r.returncode == 0, f"tail hole: verify --history ({r.returncode}, {r.stderr!r})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdelta-test", required=True)
    ap.add_argument("--runs", type=int, default=int(os.environ.get("RDELTA_HISTORY_CRASH_RUNS", "60")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("RDELTA_CRASH_SEED", str(int(time.time())))))
    a = ap.parse_args()
    rdelta = os.path.abspath(a.rdelta)
    tool = Tool(rdelta, os.path.abspath(a.rdelta_test),
                {k: v for k, v in os.environ.items() if not k.startswith("RDELTA_")})
    rng = random.Random(a.seed)
    print(f"seed {a.seed} (--seed {a.seed} repeats this run)", flush=True)
    work = tempfile.mkdtemp(prefix="rdelta-history-crash-")
    stats = {"old": 0, "new": 0, "journal": 0, "recover killed": 0, "prune killed": 0}
    try:
        tail_hole(tool, work, rng)
        nights = Nights(tool, work, rng)
        t0 = time.monotonic()
        nights.build()
        print(f"{NIGHTS} nights of {len(nights.data[0]) >> 20} MiB, history built in {time.monotonic() - t0:.2f} s",
              flush=True)
        # rdelta-test obeys the hooks (without them every kill below would be missed).
        nights.put_back(PRUNE_AT, "prune")
        r = tool.run("prune", "--keep-last", "1", nights.img, env={"RDELTA_TEST_KILL_AT_HISTORY_STEP": "1"})
        if not check(r.returncode == -signal.SIGKILL, f"rdelta-test is killed at history step 1 ({r.returncode})"):
            return summary()
        patch_n = a.runs * 2 // 5
        prune_n = a.runs * 2 // 5
        recover_n = a.runs - patch_n - prune_n
        for name, n, fn in (("patch", patch_n, patch_runs), ("prune", prune_n, prune_runs),
                            ("recover", recover_n, recover_runs)):
            t0 = time.monotonic()
            fn(n, nights, rng, stats)
            print(f"{name}: {n} kills in {time.monotonic() - t0:.1f} s", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"after a killed patch: image old {stats['old']}, new {stats['new']}, journal left {stats['journal']}; "
          f"recover killed {stats['recover killed']}, prune killed at a random moment {stats['prune killed']}")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
