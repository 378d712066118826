#!/usr/bin/env python3
"""Restore points end to end: a sparse image through 30 nights of generated churn
(overwrites, appends, a truncation, holes punched and filled) patched in place with
--keep-history, the test keeping a copy of each night. Every point restores
byte-identical and sparse, by number and by date; each prune policy (keep-last,
daily, weekly, monthly, combined) keeps exactly the points borg's rules keep, and
each kept point still restores; a point's bytes stay near the delta's; an image
changed behind rdelta's back restores nothing (106); restore never writes the image;
a history kept elsewhere (--history-dir) is never silently left out.
Usage: history_test.py --rdelta PATH [--nights N]. Prints 'N passed, M failed'."""
import argparse
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from tally import check, summary

MiB = 1 << 20
SIZE = 24 * MiB
START = datetime.datetime(2026, 10, 5, 3, 0)  # a Monday


def run(rdelta, *args):
    return subprocess.run([rdelta, *args], capture_output=True, text=True)


def night_time(i):
    """Night i's image was written at 03:00 on day i (irregular gaps: some days have none)."""
    return START + datetime.timedelta(days=i + i // 7)


def churn(path, night, rng):
    """One night's changes to the file at `path`."""
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        for _ in range(rng.randint(2, 6)):  # overwrites
            at = rng.randrange(0, max(1, size - 65536))
            f.seek(at)
            f.write(rng.randbytes(rng.choice([4096, 10000, 65536])))
        if night % 5 == 0:  # an append
            f.seek(0, os.SEEK_END)
            f.write(rng.randbytes(rng.randint(1, 300) * 1000))
        if night == 12:  # a truncation
            f.truncate(size * 2 // 3)
        if night == 20:  # a hole filled
            f.seek(SIZE // 2 + 4096 * 3)
            f.write(rng.randbytes(200000))
    if night % 7 == 3:  # holes punched
        at = rng.randrange(0, os.path.getsize(path) // 2) // 4096 * 4096
        subprocess.run(["fallocate", "-p", "-o", str(at), "-l", str(128 * 1024), path], check=True)


def allocated(path):
    return os.stat(path).st_blocks * 512


def same(a, b):
    return subprocess.run(["cmp", "-s", a, b]).returncode == 0


def borg_keep(times, last=0, daily=0, weekly=0, monthly=0):
    """The indexes (newest first) borg's rules keep."""
    keep = set(range(min(last, len(times))))
    periods = ((daily, lambda t: t.date()), (weekly, lambda t: t.isocalendar()[:2]),
               (monthly, lambda t: (t.year, t.month)))
    for count, period in periods:
        seen = None
        for i, t in enumerate(times):
            if count == 0:
                break
            if seen is not None and period(t) == seen:
                continue
            keep.add(i)
            seen = period(t)
            count -= 1
    return keep


def history_points(rdelta, image):
    r = run(rdelta, "history", "--json", image)
    return json.loads(r.stdout)["points"] if r.returncode == 0 else None


def night_of(point, nights):
    """The night whose image a point holds, from its time."""
    t = datetime.datetime.fromtimestamp(point["time_s"])
    for i in range(nights + 1):
        if night_time(i) == t:
            return i
    return None


def check_restores(rdelta, image, work, nights, label):
    """Every listed point restores byte-identical to its night, and sparse."""
    points = history_points(rdelta, image)
    if not check(points is not None, f"{label}: history lists the points"):
        return
    for p in points:
        n = night_of(p, nights)
        out = os.path.join(work, "restored")
        r = run(rdelta, "restore", "-f", image, str(p["point"]), out)
        ok = r.returncode == 0 and n is not None and same(out, os.path.join(work, f"night{n}"))
        check(ok, f"{label}: point {p['point']} restores night {n}: {r.returncode} {r.stderr.strip()}")
        if ok:
            expected = allocated(os.path.join(work, f"night{n}"))
            check(allocated(out) <= expected + MiB,
                  f"{label}: point {p['point']} restored sparse ({allocated(out)} bytes allocated, night {expected})")
        if os.path.exists(out):
            os.unlink(out)


def make_nights(rdelta, work, nights, rng):
    image = os.path.join(work, "disk.img")
    with open(image, "wb") as f:
        f.truncate(SIZE)
        for k in range(6):
            f.seek(k * 4 * MiB + 512 * 1024)
            f.write(rng.randbytes(MiB))
    shutil.copy(image, os.path.join(work, "night0"))
    sig = os.path.join(work, "disk.sig")
    check(run(rdelta, "signature", image, sig).returncode == 0, "first signature")
    delta_bytes = point_bytes = 0
    for i in range(1, nights + 1):
        new = os.path.join(work, f"night{i}")
        subprocess.run(["cp", "--sparse=always", os.path.join(work, f"night{i - 1}"), new], check=True)
        churn(new, i, rng)
        delta = os.path.join(work, "night.delta")
        r = run(rdelta, "delta", "-f", "--in-place-safe", "--new-signature", sig + ".new", sig, new, delta)
        if not check(r.returncode == 0, f"night {i}: delta: {r.stderr.strip()}"):
            return None
        os.replace(sig + ".new", sig)
        os.replace(os.path.join(work, ".disk.sig.new.rdelta-root"), os.path.join(work, ".disk.sig.rdelta-root"))
        t = night_time(i - 1).timestamp()
        os.utime(image, (t, t))  # the image as it is now was written at night i-1
        r = run(rdelta, "patch", "--in-place", "--keep-history", "--json", image, delta)
        if not check(r.returncode == 0, f"night {i}: patch --keep-history: {r.stderr.strip()}"):
            return None
        stats = json.loads(r.stderr.strip().splitlines()[-1])
        check(stats["point_kept"] > 0, f"night {i}: a point was kept")
        delta_bytes += os.path.getsize(delta)
        point_bytes += stats["point_bytes"]
        check(same(image, new), f"night {i}: the image is the night's file")
    check(point_bytes <= 1.25 * delta_bytes + nights * 8192,
          f"the history's {point_bytes} bytes are within 1.25x the deltas' {delta_bytes} plus 8 KiB a point")
    print(f"{nights} nights: deltas {delta_bytes} bytes, points {point_bytes} bytes", flush=True)
    return image


def check_prunes(rdelta, image, work, nights):
    history = os.path.join(work, ".disk.img.rdelta-history")
    saved = os.path.join(work, "history.saved")
    shutil.copytree(history, saved, symlinks=True)
    points = history_points(rdelta, image)
    times = [datetime.datetime.fromtimestamp(p["time_s"]) for p in points]
    policies = [dict(last=5), dict(daily=7), dict(weekly=4), dict(monthly=2),
                dict(last=2, daily=5, weekly=3, monthly=2)]
    for policy in policies:
        shutil.rmtree(history)
        shutil.copytree(saved, history, symlinks=True)
        args = [f"--keep-{k if k != 'last' else 'last'}={v}" for k, v in policy.items()]
        label = "prune " + " ".join(args)
        dry = run(rdelta, "prune", "--dry-run", *args, image)
        check(dry.returncode == 0 and len(history_points(rdelta, image)) == len(points),
              f"{label} --dry-run changes nothing")
        r = run(rdelta, "prune", *args, image)
        if not check(r.returncode == 0, f"{label}: {r.stderr.strip()}"):
            continue
        want = sorted(times[i] for i in borg_keep(times, **policy))
        got = sorted(datetime.datetime.fromtimestamp(p["time_s"]) for p in history_points(rdelta, image))
        check(got == want, f"{label} keeps {[str(t) for t in want]}, kept {[str(t) for t in got]}")
        check(run(rdelta, "verify", "--history", image).returncode == 0, f"{label}: verify --history")
        check_restores(rdelta, image, work, nights, label)
    shutil.rmtree(history)
    shutil.copytree(saved, history, symlinks=True)


def check_dates(rdelta, image, work, nights):
    points = history_points(rdelta, image)
    out = os.path.join(work, "by-date")
    target = night_time(nights - 3)  # the newest point at or before a day is that day's
    r = run(rdelta, "restore", image, target.strftime("%Y-%m-%d"), out)
    check(r.returncode == 0 and same(out, os.path.join(work, f"night{nights - 3}")),
          f"restore by date {target:%Y-%m-%d} gives night {nights - 3}: {r.stderr.strip()}")
    os.unlink(out) if os.path.exists(out) else None
    r = run(rdelta, "restore", image, (target - datetime.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M"), out)
    check(r.returncode == 0 and same(out, os.path.join(work, f"night{nights - 4}")),
          f"restore a minute before night {nights - 3} gives night {nights - 4}: {r.stderr.strip()}")
    os.unlink(out) if os.path.exists(out) else None
    r = run(rdelta, "restore", image, "2001-01-01", out)
    check(r.returncode == 108 and not os.path.exists(out) and "no point at or before" in r.stderr,
          f"a date before every point: {r.returncode} {r.stderr.strip()}")
    r = run(rdelta, "restore", image, str(len(points) + 1), out)
    check(r.returncode == 108 and not os.path.exists(out), f"a point past the oldest: {r.returncode}")


def check_untouched_and_changed(rdelta, image, work):
    before = os.stat(image)
    out = os.path.join(work, "one")
    check(run(rdelta, "restore", image, "1", out).returncode == 0, "restore point 1")
    after = os.stat(image)
    check((before.st_mtime_ns, before.st_ctime_ns) == (after.st_mtime_ns, after.st_ctime_ns),
          "restore leaves the image untouched")
    os.unlink(out)
    # Changed behind rdelta's back: no point can be trusted to restore.
    with open(image, "r+b") as f:
        f.seek(4096)
        f.write(b"changed by someone else")
    r = run(rdelta, "restore", image, "1", out)
    check(r.returncode == 106 and not os.path.exists(out) and "point 1" in r.stderr,
          f"an image changed since point 1: 106 naming it, nothing published: {r.returncode} {r.stderr.strip()}")


def check_history_elsewhere(rdelta, work, rng):
    """A history kept in a folder of its own (--history-dir, given relative): the
    image notes the folder's absolute path, and a run that forgets the folder
    refuses (108), naming it, instead of patching without keeping a point or
    starting a second history beside the image; given again, it works."""
    here = os.path.join(work, "elsewhere")
    os.makedirs(here)
    img, hist = os.path.join(here, "vm.img"), os.path.join(here, "vm-history")
    nights = [rng.randbytes(2 * MiB)]
    with open(img, "wb") as f:
        f.write(nights[0])

    def next_delta():
        new = bytearray(nights[-1])
        at = rng.randrange(len(new) - 4096)
        new[at:at + 4096] = rng.randbytes(4096)
        nights.append(bytes(new))
        with open(os.path.join(here, "new"), "wb") as f:
            f.write(nights[-1])
        subprocess.run([rdelta, "signature", "-f", img, os.path.join(here, "sig")], check=True)
        subprocess.run([rdelta, "delta", "-f", os.path.join(here, "sig"), os.path.join(here, "new"),
                        os.path.join(here, "d")], check=True)

    next_delta()
    p = subprocess.run([rdelta, "patch", "--in-place", "--keep-history", "--history-dir", "vm-history", "vm.img", "d"],
                       capture_output=True, text=True, cwd=here)
    check(p.returncode == 0 and os.path.isdir(hist), f"first night keeps its point in vm-history ({p.stderr.strip()})")
    try:
        noted = os.getxattr(img, "user.rdelta.history")
    except OSError as e:
        check(False, f"the image notes where its history is (user attributes: {e})")
        return
    check(noted == b"1 " + hist.encode(), f"... and the image notes its absolute path ({noted!r})")
    next_delta()
    before = os.stat(img)
    for args in (["patch", "--in-place"], ["patch", "--in-place", "--keep-history"], ["history"]):
        r = run(rdelta, *args, img, *([os.path.join(here, "d")] if args[0] == "patch" else []))
        after = os.stat(img)
        check(r.returncode == 108 and hist in r.stderr and "give that folder" in r.stderr and
              (before.st_mtime_ns, before.st_ctime_ns) == (after.st_mtime_ns, after.st_ctime_ns) and
              not os.path.exists(os.path.join(here, ".vm.img.rdelta-history")),
              f"{' '.join(args)} without the folder: refused (108) naming it, the image untouched, no second "
              f"history ({r.returncode}, {r.stderr.strip()})")
    r = run(rdelta, "patch", "--in-place", "--history-dir", hist, img, os.path.join(here, "d"))
    points = run(rdelta, "history", "--json", "--history-dir", hist, img)
    check(r.returncode == 0 and points.returncode == 0 and len(json.loads(points.stdout)["points"]) == 2,
          f"given again: the night keeps its point ({r.stderr.strip()}, {points.stdout.strip()})")
    out = os.path.join(here, "first")
    r = run(rdelta, "restore", "--history-dir", hist, img, "2", out)
    check(r.returncode == 0 and open(out, "rb").read() == nights[0], f"the first night restores ({r.stderr.strip()})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--nights", type=int, default=30)
    args = ap.parse_args()
    rdelta = os.path.abspath(args.rdelta)
    os.environ["TZ"] = "UTC"
    if shutil.which("fallocate") is None:
        print("fallocate (util-linux) is missing: skipped")
        return 77
    rng = random.Random(46)
    with tempfile.TemporaryDirectory(prefix="rdelta-history-") as work:
        image = make_nights(rdelta, work, args.nights, rng)
        if image:
            check(run(rdelta, "verify", "--history", image).returncode == 0, "verify --history after the nights")
            check_restores(rdelta, image, work, args.nights, "all nights")
            check_dates(rdelta, image, work, args.nights)
            check_prunes(rdelta, image, work, args.nights)
            check_untouched_and_changed(rdelta, image, work)
        check_history_elsewhere(rdelta, work, rng)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
