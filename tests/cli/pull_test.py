#!/usr/bin/env python3
"""`rdelta pull [--at POINT] HOST:PATH LOCAL` against a real sshd on 127.0.0.1 (push_test's
start_sshd): a remote image with restore points kept by nights of `patch --in-place
--keep-history` (random data, sparse) pulled onto a missing LOCAL (a new file) and
onto an older LOCAL (only the difference crosses the wire), its points by number
and by date, a bad point and a point whose root does not match (clear error, LOCAL
untouched); `restore --delta-against` on its own; `push --keep-history` keeping
points on the remote.
Usage: pull_test.py --rdelta PATH. Skips (77) when sshd is not installed."""
import argparse
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from file_ops import read as content
from push_session import SSHD, start_sshd
from tally import check, summary

MiB = 1 << 20
CHUNK = 64 << 10


def write(path, data):
    """`data` with its zero chunks left as holes."""
    with open(path, "wb") as f:
        for at in range(0, len(data), CHUNK):
            piece = data[at:at + CHUNK]
            if piece.count(0) == len(piece):
                f.seek(len(piece), os.SEEK_CUR)
            else:
                f.write(piece)
        f.truncate(len(data))


def night(rng, data, share=0.03):
    """`data` with about `share` of its chunks changed in one place each."""
    data = bytearray(data)
    chunks = len(data) // CHUNK
    for c in rng.sample(range(chunks), max(1, int(chunks * share))):
        at = c * CHUNK + rng.randrange(CHUNK - 4096)
        data[at:at + 4096] = rng.randbytes(4096)
    return bytes(data)


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, timeout=120, **kw)


class puller:
    def __init__(self, rdelta, ssh):
        self.rdelta, self.ssh = rdelta, ssh

    def run(self, source, local, *extra, remote=None):
        args = [self.rdelta, "pull", "--json", "--ssh", " ".join(self.ssh), "--remote-rdelta", remote or self.rdelta,
                *extra, source, local]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        stats = {}
        for line in r.stderr.splitlines():
            if line.startswith("{"):
                stats = json.loads(line)
        return r, stats


def keep_nights(rdelta, work, remote, rng):
    """The remote image through four nights; returns each night's bytes, oldest first.
    Night k was written at noon on 2026-01-0(k+1), local time."""
    data = rng.randbytes(3 * MiB) + bytes(2 * MiB) + rng.randbytes(MiB + 1234)
    nights = [data]
    write(remote, data)
    for k in range(1, 4):
        noon = datetime.datetime(2026, 1, k, 12, 0).timestamp()
        os.utime(remote, (noon, noon))
        data = night(rng, data)
        nights.append(data)
        new, sig, delta = (os.path.join(work, n) for n in ("new.img", "night.sig", "night.delta"))
        write(new, data)
        r1 = run(rdelta, "signature", "-f", remote, sig)
        r2 = run(rdelta, "delta", "-f", "--in-place-safe", sig, new, delta)
        r3 = run(rdelta, "patch", "-q", "--in-place", "--keep-history", remote, delta)
        if not check(r1.returncode == r2.returncode == r3.returncode == 0 and content(remote) == data,
                     f"night {k} patched in place, keeping history ({r3.stderr!r})"):
            break
    noon = datetime.datetime(2026, 1, 4, 12, 0).timestamp()
    os.utime(remote, (noon, noon))
    return nights


def restore_delta(rdelta, work, remote, nights):
    """restore --delta-against without ssh: the delta from a signature to a point."""
    local, sig, delta = (os.path.join(work, n) for n in ("rd-local.img", "rd.sig", "rd.delta"))
    write(local, nights[3])
    run(rdelta, "signature", local, sig)
    r = run(rdelta, "restore", "-q", "--delta-against", sig, remote, "2", delta)
    check(r.returncode == 0 and os.path.getsize(delta) < len(nights[1]) // 4,
          f"restore --delta-against writes a small delta ({r.returncode}, {r.stderr!r})")
    r = run(rdelta, "patch", "-q", "--in-place", local, delta)
    check(r.returncode == 0 and content(local) == nights[1], f"which patch --in-place turns into point 2 ({r.stderr!r})")
    with open(sig, "rb") as f:
        r = run(rdelta, "restore", "-q", "--zstd", "--delta-against", "-", remote, "3", "-", stdin=f)
    with open(delta, "wb") as f:
        f.write(r.stdout)
    r2 = run(rdelta, "patch", "-q", "--in-place", local, delta)
    check(r.returncode == 0 and r2.returncode == 0 and content(local) == nights[0],
          f"SIG and OUTPUT '-', compressed: point 3 ({r.stderr!r}, {r2.stderr!r})")
    r = run(rdelta, "restore", "--zstd", remote, "2", os.path.join(work, "x"))
    check(r.returncode == 101, f"--zstd without --delta-against is a usage error ({r.stderr!r})")


def scenarios(rdelta, work, ssh):
    rng = random.Random(11)
    remote_dir = os.path.join(work, "remote dir")
    os.mkdir(remote_dir)
    remote = os.path.join(remote_dir, "it's disk.img")  # a blank and a quote for the remote shell
    source = "root@127.0.0.1:" + remote
    nights = keep_nights(rdelta, work, remote, rng)
    size = len(nights[-1])
    hist = json.loads(run(rdelta, "history", "--json", remote).stdout)
    check(len(hist["points"]) == 3 and hist["length"] == size, f"three restore points there: {hist}")
    restore_delta(rdelta, work, remote, nights)
    p = puller(rdelta, ssh)

    # The image as it is, onto a LOCAL that does not exist: a new file.
    local = os.path.join(work, "local.img")
    r, s = p.run(source, local)
    check(r.returncode == 0 and content(local) == nights[3], f"pulled onto a missing LOCAL ({r.returncode}, {r.stderr!r})")
    check(s.get("mode") == "new-file" and s.get("point") is None and s.get("compression") == "zstd", f"as a new file: {s}")
    check(s.get("wire_bytes", size) < size, f"compressed on the wire (holes and all): {s}")
    summary_lines = [line for line in r.stderr.splitlines() if line.startswith("rdelta: pull: pulled ")]
    check(len(summary_lines) == 1 and "over the wire" in summary_lines[0], f"a one-line summary ({r.stderr!r})")

    # Onto the night before: only about 3% of the chunks cross.
    write(local, nights[2])
    r, s = p.run(source, local)
    check(r.returncode == 0 and content(local) == nights[3], f"pulled onto an older LOCAL ({r.stderr!r})")
    check(s.get("mode") == "in-place" and 0 < s.get("wire_bytes", size) < size // 8,
          f"only the difference crossed ({s.get('wire_bytes')} of {size} bytes): {s}")
    r, s = p.run(source, local, "--no-compress")
    check(r.returncode == 0 and content(local) == nights[3] and s.get("compression") == "none",
          f"again, uncompressed: nothing to do ({r.stderr!r}, {s})")

    # Restore points, by number and by date.
    r, s = p.run(source, local, "--at", "2")
    check(r.returncode == 0 and content(local) == nights[1] and s.get("point") == 2,
          f"--at 2 onto the current image ({r.stderr!r}, {s})")
    check(0 < s.get("wire_bytes", size) < size // 4, f"only the difference crossed: {s}")
    check(any("pulled point 2 of " in line for line in r.stderr.splitlines()), f"the summary names the point ({r.stderr!r})")
    fresh = os.path.join(work, "fresh.img")
    r, s = p.run(source, fresh, "--at", "2", "-z")
    check(r.returncode == 0 and content(fresh) == nights[1] and s.get("mode") == "new-file"
          and s.get("compression") == "gzip", f"--at 2 onto a missing LOCAL, gzip on the wire ({r.stderr!r}, {s})")
    r, s = p.run(source, local, "--at", "2026-01-01")
    check(r.returncode == 0 and content(local) == nights[0] and s.get("point") == 3,
          f"--at 2026-01-01: the point of that day ({r.stderr!r}, {s})")
    r, s = p.run(source, local, "--at", "2026-01-02T13:00")
    check(r.returncode == 0 and content(local) == nights[1] and s.get("point") == 2,
          f"--at 2026-01-02T13:00 ({r.stderr!r}, {s})")

    # A point there is not: a clear error, LOCAL untouched (or still missing).
    before = content(local)
    for at in ("9", "1999-01-01", "yesterday"):
        r, s = p.run(source, local, "--at", at)
        last = r.stderr.splitlines()[-1] if r.stderr else ""
        check(r.returncode == 108 and content(local) == before and "was not changed" in last,
              f"--at {at}: refused ({r.returncode}, {r.stderr!r})")
    missing = os.path.join(work, "missing.img")
    r, s = p.run(source, missing, "--at", "9")
    check(r.returncode == 108 and not os.path.exists(missing), f"a missing LOCAL stays missing ({r.stderr!r})")
    check("no point 9 (there are 3)" in r.stderr, f"the error says why ({r.stderr!r})")

    # The point's root (from history --json) is not what the delta makes: 106, untouched.
    liar = os.path.join(work, "liar")
    with open(liar, "w") as f:
        f.write("#!/usr/bin/env python3\nimport re, subprocess, sys\n"
                f"r = subprocess.run([{rdelta!r}] + sys.argv[1:], capture_output=True)\n"
                "out = r.stdout\n"
                "if sys.argv[1] == 'history':\n"
                "    out = re.sub(rb'\"root\": \"[0-9a-f]{32}\"', b'\"root\": \"' + b'0' * 32 + b'\"', out)\n"
                "sys.stdout.buffer.write(out); sys.stderr.buffer.write(r.stderr); sys.exit(r.returncode)\n")
    os.chmod(liar, 0o755)
    r, s = p.run(source, local, "--at", "1", remote=liar)
    check(r.returncode == 106 and content(local) == before and "chunk root" in r.stderr.splitlines()[-1],
          f"a delta that does not make the point's root is refused ({r.returncode}, {r.stderr!r})")

    # Missing remote image, and rdelta missing there.
    r, s = p.run("root@127.0.0.1:" + os.path.join(work, "nothing.img"), local)
    check(r.returncode == 100 and content(local) == before and "nothing.img" in r.stderr,
          f"a missing remote image ({r.returncode}, {r.stderr!r})")
    r, s = p.run(source, local, remote="/nonexistent/rdelta")
    check(r.returncode == 100 and "--remote-rdelta" in r.stderr.splitlines()[-1] and content(local) == before,
          f"no rdelta on the remote host ({r.stderr!r})")
    r = run(rdelta, "pull", "nocolon", local)
    check(r.returncode == 101, f"a source without ':' is a usage error ({r.stderr!r})")


def push_keeps_history(rdelta, work, ssh):
    """push --keep-history: the remote patch keeps the image it replaces as a point."""
    rng = random.Random(5)
    image, remote = os.path.join(work, "pushed.img"), os.path.join(work, "pushed-remote.img")
    store = os.path.join(work, "pushed.sig")
    dest = "root@127.0.0.1:" + remote
    versions = [rng.randbytes(2 * MiB)]
    for _ in range(2):
        versions.append(night(rng, versions[-1], 0.05))

    def push(data, *extra):
        write(image, data)
        return run(rdelta, "push", "-q", "--ssh", " ".join(ssh), "--remote-rdelta", rdelta, "--signature-store", store,
                   *extra, image, dest)

    r = push(versions[0])
    check(r.returncode == 0 and content(remote) == versions[0], f"the first push ({r.stderr!r})")
    for v in versions[1:]:
        r = push(v, "--keep-history")
        check(r.returncode == 0 and content(remote) == v, f"push --keep-history ({r.stderr!r})")
    hist = json.loads(run(rdelta, "history", "--json", remote).stdout)
    check(len(hist["points"]) == 2, f"two points kept on the remote: {hist}")
    back = os.path.join(work, "pushed-back.img")
    r, s = puller(rdelta, ssh).run(dest, back, "--at", "2")
    check(r.returncode == 0 and content(back) == versions[0], f"and pull --at 2 brings the first back ({r.stderr!r})")


def killed_pulls(rdelta, work, ssh, runs):
    """SIGKILL at random moments of a pull onto an existing LOCAL (the delta on its way,
    the patch under its journal): after `rdelta recover LOCAL` it is exactly the old
    image or exactly the point pulled, never a mix."""
    rng = random.Random(12)
    remote = os.path.join(work, "kill-remote.img")
    nights = keep_nights(rdelta, work, remote, rng)
    source = "root@127.0.0.1:" + remote
    local = os.path.join(work, "kill-local.img")
    args = [rdelta, "pull", "-q", "--ssh", " ".join(ssh), "--remote-rdelta", rdelta, "--at", "3", source, local]
    write(local, nights[3])
    t0 = time.monotonic()
    whole = subprocess.run(args, capture_output=True, timeout=120)
    took = time.monotonic() - t0
    check(whole.returncode == 0 and content(local) == nights[0], f"an uninterrupted pull of point 3 ({whole.stderr!r})")
    outcomes = {"old": 0, "new": 0}
    for k in range(runs):
        write(local, nights[3])
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, took * 1.1))
        proc.kill()
        proc.wait()
        r = run(rdelta, "recover", local)
        now = content(local)
        state = "old" if now == nights[3] else "new" if now == nights[0] else None
        if state:
            outcomes[state] += 1
        check(r.returncode == 0 and state is not None,
              f"kill {k} after a random moment: recover exits 0 ({r.stderr!r}) and LOCAL is the old image or point 3")
    print(f"killed pulls: {runs}, LOCAL old after {outcomes['old']}, point 3 after {outcomes['new']}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rdelta", required=True)
    parser.add_argument("--kill-runs", type=int, default=int(os.environ.get("RDELTA_PULL_KILL_RUNS", "20")))
    options = parser.parse_args()
    rdelta = os.path.abspath(options.rdelta)
    if not os.path.exists(SSHD):
        print("sshd is not installed (.ci/install-deps installs openssh-server): skipped")
        return 77
    with tempfile.TemporaryDirectory() as work:
        sshd, _direct, ssh = start_sshd(work)
        try:
            scenarios(rdelta, work, ssh)
            push_keeps_history(rdelta, work, ssh)
            killed_pulls(rdelta, work, ssh, options.kill_runs)
        finally:
            subprocess.run(ssh + ["-O", "exit", "127.0.0.1"], capture_output=True)
            sshd.terminate()
            sshd.wait()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
