#!/usr/bin/env python3
"""Rewriting an existing file in its inode (`-f` over a file with other hard links,
or in a folder the caller cannot write): the one way of publishing an output that
cannot be atomic. The rules (man page, SAFETY):

  - a disk too full for the rewrite is found before the file is touched: status 100,
    the file unchanged, nothing left behind (root: a small tmpfs in a private mount
    namespace);
  - SIGTERM and the other cleanup signals wait until the rewrite is done: killed at
    many instants, the file is always wholly old or wholly new;
  - SIGKILL during the rewrite leaves the complete new content in the staging file
    beside it (`.NAME.rdelta-XXXXXX`), so nothing is lost; a staging file is named
    only once complete, so one left behind never holds part of the output.

Usage: rewrite_inode_test.py --rdelta PATH. Prints 'N passed, M failed'."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

passed = failed = 0
MiB = 1 << 20


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, flush=True)
    return ok


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def staging_files(folder):
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if ".rdelta-" in n)


def linked_target(folder, old):
    """`folder`/out holding `old`, with a second name: it must be rewritten in place."""
    out = os.path.join(folder, "out")
    for n in staging_files(folder) + [out, out + ".link"]:
        if os.path.lexists(n):
            os.remove(n)
    write(out, old)
    os.link(out, out + ".link")
    return out


def kill_when_rewriting(argv, out, old, sig):
    """Start the patch, send `sig` as soon as the file's first bytes change (the
    rewrite has begun), wait for it; returns (exit status, stderr)."""
    fd = os.open(out, os.O_RDONLY)
    try:
        p = subprocess.Popen(argv + [out], stderr=subprocess.PIPE)
        head = old[:4096]
        deadline = time.monotonic() + 60
        while p.poll() is None and os.pread(fd, 4096, 0) == head and time.monotonic() < deadline:
            pass
        if p.poll() is None:
            p.send_signal(sig)
        _, err = p.communicate()
        return p.returncode, err
    finally:
        os.close(fd)


def interrupted(rdelta, work, old, new, delta):
    """Kill patch -f with SIGTERM and SIGKILL at instants spread over a whole run,
    and as soon as the rewrite has begun."""
    folder = os.path.join(work, "kill")
    os.mkdir(folder)
    argv = [rdelta, "patch", "-f", os.path.join(work, "basis"), delta]
    out = linked_target(folder, old)
    t0 = time.perf_counter()
    subprocess.run(argv + [out], check=True)
    whole = time.perf_counter() - t0
    check(read(out) == new and read(out + ".link") == new and not staging_files(folder),
          "patch -f over a hard-linked file: both names see the new content, no staging file left")
    rounds, mixed_states = 8, 0
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for k in range(2 * rounds):
            out = linked_target(folder, old)
            if k < rounds:
                p = subprocess.Popen(argv + [out], stderr=subprocess.PIPE)
                time.sleep(whole * (0.1 + 0.9 * k / rounds))
                p.send_signal(sig)
                _, err = p.communicate()
                rc, when = p.returncode, f"at {k}/{rounds} of {whole:.2f} s"
            else:
                rc, err = kill_when_rewriting(argv, out, old, sig)
                when = "once the rewrite had begun"
            now, left = read(out), staging_files(folder)
            what = f"{sig.name} {when} (exit {rc}, staging files {left}, {err.decode(errors='replace').strip()!r})"
            if sig == signal.SIGTERM:
                check(now in (old, new) and not left, f"{what}: the file is wholly old or new, nothing left behind")
                check(rc in (0, -sig) and (rc != 0 or now == new), f"{what}: status")
                if k >= rounds:
                    check(now == new, f"{what}: a rewrite that had begun is finished before the signal acts")
            else:
                check(all(read(n) == new for n in left),
                      f"{what}: a staging file left behind holds the complete new content, never part of it")
                if now not in (old, new):
                    mixed_states += 1
                    check(len(left) == 1,
                          f"{what}: killed while rewriting, the staging file must hold the complete new content")
            for n in left:
                os.remove(n)
    check(mixed_states > 0, "no SIGKILL landed while the file was being rewritten: the case tested nothing")
    print(f"note: {mixed_states} of {2 * rounds} SIGKILLs landed while the file was being rewritten", flush=True)


def full_disk(rdelta, work, inner):
    """Outer: re-run this script in a private mount namespace. Inner: on a small tmpfs."""
    if not inner:
        if os.geteuid() != 0 or not shutil.which("unshare"):
            print("note: the full-disk case needs root (a tmpfs in unshare -m); not run", flush=True)
            return
        r = subprocess.run(["unshare", "-m", sys.executable, __file__, "--rdelta", rdelta, "--full-disk-inner", work],
                           capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        check(r.returncode == 0, f"full-disk case: {r.stderr[-2000:]}")
        return
    mnt = os.path.join(work, "small")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt]).returncode != 0:
        print("note: cannot mount a tmpfs; the full-disk case was not run", flush=True)
        return
    try:
        old, new = os.urandom(MiB), os.urandom(2600 * 1024)   # staging fits, the grown file does not
        write(os.path.join(work, "small.basis"), old)
        write(os.path.join(work, "small.new"), new)
        subprocess.run([rdelta, "signature", os.path.join(work, "small.basis"), os.path.join(work, "small.sig")], check=True)
        subprocess.run([rdelta, "delta", os.path.join(work, "small.sig"), os.path.join(work, "small.new"),
                        os.path.join(work, "small.delta")], check=True)
        out = linked_target(mnt, old)
        p = subprocess.run([rdelta, "patch", "-f", os.path.join(work, "small.basis"), os.path.join(work, "small.delta"),
                            out], capture_output=True, text=True)
        check(p.returncode == 100 and read(out) == old and read(out + ".link") == old and not staging_files(mnt)
              and "space" in p.stderr and out in p.stderr,
              f"a disk too full for the rewrite: 100, file unchanged, nothing left (exit {p.returncode}, "
              f"{p.stderr.strip()!r}, left {staging_files(mnt)})")
        st = os.statvfs(mnt)
        check(st.f_bfree * st.f_frsize >= 2 * MiB, "the space reserved for the rewrite was given back")
    finally:
        subprocess.run(["umount", mnt])
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--full-disk-inner")
    args = ap.parse_args()
    rdelta = os.path.abspath(args.rdelta)
    if args.full_disk_inner:
        full_disk(rdelta, args.full_disk_inner, True)
    work = tempfile.mkdtemp(prefix="rdelta-rewrite-")
    try:
        old, new = os.urandom(96 * MiB), os.urandom(96 * MiB)
        write(os.path.join(work, "basis"), old)
        write(os.path.join(work, "new"), new)
        subprocess.run([rdelta, "signature", os.path.join(work, "basis"), os.path.join(work, "basis.sig")], check=True)
        delta = os.path.join(work, "new.delta")
        subprocess.run([rdelta, "delta", os.path.join(work, "basis.sig"), os.path.join(work, "new"), delta], check=True)
        interrupted(rdelta, work, old, new, delta)
        full_disk(rdelta, work, False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
