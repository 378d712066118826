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
    beside it, named `.NAME.rdelta-rewrite` only once complete, so nothing is lost;
    `rdelta recover NAME` (or the next `patch --in-place NAME`) finishes the
    rewrite from it; with a read-only folder it is `.rdelta-rewrite-DEV-INO` in
    $TMPDIR;
  - recovery copies in only a staging file rdelta could have made (a regular file
    with one link, owned by the caller or the file's owner), never a symlink, and
    a file someone else planted under that name is ignored;
  - while a file is rewritten it is locked: a second rewrite of it fails at once.

Usage: rewrite_inode_test.py --rdelta PATH. Prints 'N passed, M failed'."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from update_note import attributes_here, marker
from tally import check, summary


MiB = 1 << 20


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


def recover(rdelta, out, **kw):
    return subprocess.run([rdelta, "recover", out], capture_output=True, text=True, **kw)


def kill_when_rewriting(argv, out, old, sig, **kw):
    """Start the patch, send `sig` as soon as the file's first bytes change (the
    rewrite has begun), wait for it; returns (exit status, stderr)."""
    fd = os.open(out, os.O_RDONLY)
    try:
        p = subprocess.Popen(argv + [out], stderr=subprocess.PIPE, **kw)
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
                    check(left == [os.path.join(folder, ".out.rdelta-rewrite")],
                          f"{what}: killed while rewriting, the staging file `.out.rdelta-rewrite` must hold the "
                          "complete new content")
                ino = os.stat(out).st_ino
                r = recover(rdelta, out)
                pending = os.path.join(folder, ".out.rdelta-rewrite") in left
                check(r.returncode == 0 and read(out) == (new if pending else now) and read(out + ".link") == read(out)
                      and os.stat(out).st_ino == ino and os.stat(out).st_nlink == 2
                      and ("finished an interrupted rewrite" in r.stderr) == pending,
                      f"{what}: `rdelta recover` finishes the rewrite from the staging file, or does nothing "
                      f"(exit {r.returncode}, {r.stderr.strip()!r})")
                left = staging_files(folder)
                check(all(not n.endswith(".rdelta-rewrite") for n in left),
                      f"{what}: recovery removed the staging file ({left})")
            for n in left:
                os.remove(n)
    check(mixed_states > 0, "no SIGKILL landed while the file was being rewritten: the case tested nothing")
    print(f"note: {mixed_states} of {2 * rounds} SIGKILLs landed while the file was being rewritten", flush=True)


def recovery_rules(rdelta, work, old, new, delta):
    """What recovery copies in, the next in-place patch, a stale staging file, the lock."""
    folder = os.path.join(work, "rules")
    os.mkdir(folder)
    argv = [rdelta, "patch", "-f", os.path.join(work, "basis"), delta]
    pending = os.path.join(folder, ".out.rdelta-rewrite")

    out = linked_target(folder, old)
    os.symlink(os.path.join(work, "new"), pending)
    r = recover(rdelta, out)
    check(r.returncode == 100 and read(out) == old and os.path.islink(pending) and pending in r.stderr,
          f"a symlink under the staging name is refused, the file unchanged (exit {r.returncode}, {r.stderr!r})")
    if os.path.lexists(pending):
        os.remove(pending)
    if os.geteuid() == 0:
        write(pending, new)
        os.chown(pending, 65534, 65534)
        r = recover(rdelta, out)
        check(r.returncode == 0 and read(out) == old and os.path.exists(pending) and "nothing to do" in r.stderr,
              f"a staging file someone else owns is ignored, the file unchanged (exit {r.returncode}, {r.stderr!r})")
        p = subprocess.run([rdelta, "signature", out, os.path.join(folder, "planted.sig")], capture_output=True)
        check(p.returncode == 0, f"a staging file someone else owns does not stop the file being read ({p.stderr!r})")
        if os.path.lexists(pending):
            os.remove(pending)
    write(pending, b"stale " * 1000)
    p = subprocess.run(argv + [out], capture_output=True)
    check(p.returncode == 0 and read(out) == new and not os.path.exists(pending),
          f"a new rewrite replaces the staging file an interrupted one left (exit {p.returncode}, {p.stderr!r})")

    # The next patch --in-place finishes an interrupted rewrite first.
    new2 = bytearray(new)
    new2[5 * MiB:5 * MiB + 4096] = os.urandom(4096)
    new2 = bytes(new2) + os.urandom(MiB)
    write(os.path.join(work, "new2"), new2)
    subprocess.run([rdelta, "signature", os.path.join(work, "new"), os.path.join(work, "new.sig")], check=True)
    ip_delta = os.path.join(work, "new2.delta")
    subprocess.run([rdelta, "delta", "--in-place-safe", os.path.join(work, "new.sig"), os.path.join(work, "new2"),
                    ip_delta], check=True)
    for attempt in range(6):
        out = linked_target(folder, old)
        kill_when_rewriting(argv, out, old, signal.SIGKILL)
        if read(out) not in (old, new) and os.path.exists(pending):
            break
    else:
        check(False, "no SIGKILL landed during the rewrite in 6 attempts")
        return
    p = subprocess.run([rdelta, "signature", out, os.path.join(folder, "half.sig")], capture_output=True, text=True)
    check(p.returncode == 100 and "rewrite of it was interrupted" in p.stderr and pending in p.stderr
          and not os.path.exists(os.path.join(folder, "half.sig")),
          f"a half-rewritten file is not read: signature refuses it (exit {p.returncode}, {p.stderr!r})")
    p = subprocess.run([rdelta, "patch", "--in-place", out, ip_delta], capture_output=True, text=True)
    check(p.returncode == 0 and read(out) == new2 and read(out + ".link") == new2 and not os.path.exists(pending)
          and "finished an interrupted rewrite" in p.stderr,
          f"patch --in-place finishes an interrupted rewrite before it patches (exit {p.returncode}, {p.stderr!r})")

    # A second rewrite of a file being rewritten fails at once, changing nothing:
    # the first waits for the rest of its delta on a pipe meanwhile.
    out = linked_target(folder, old)
    ino, whole_delta = os.stat(out).st_ino, read(delta)
    slow = subprocess.Popen([rdelta, "patch", "-f", os.path.join(work, "basis"), "-", out], stdin=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    slow.stdin.write(whole_delta[:len(whole_delta) // 2])
    slow.stdin.flush()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(f":{ino} " in line for line in open("/proc/locks")):
        time.sleep(0.01)
    second = subprocess.run(argv + [out], capture_output=True, text=True)
    after_second = read(out)
    slow.communicate(whole_delta[len(whole_delta) // 2:])
    check(second.returncode == 100 and "locked" in second.stderr and after_second == old,
          f"a second rewrite of a file being rewritten fails, changing nothing (exit {second.returncode}, "
          f"{second.stderr!r})")
    check(slow.returncode == 0 and read(out) == new and not staging_files(folder), "the first rewrite completed")


def other_names(rdelta, work, old, new, delta):
    """The file itself names its staging file while it is rewritten: killed midway,
    its other hard links (here and in another folder) are refused as inputs, and
    `rdelta recover` through any of them finishes the rewrite."""
    folder, elsewhere = os.path.join(work, "names"), os.path.join(work, "names-elsewhere")
    os.mkdir(folder)
    os.mkdir(elsewhere)
    if not attributes_here(folder):
        print("note: this file system keeps no user attributes; the other-names case was not run", flush=True)
        return
    argv = [rdelta, "patch", "-f", os.path.join(work, "basis"), delta]
    pending = os.path.join(folder, ".out.rdelta-rewrite")
    far = os.path.join(elsewhere, "far")
    out = linked_target(folder, old)
    subprocess.run(argv + [out], check=True)
    check(read(out) == new and marker(out) is None, "a finished rewrite leaves no note on the file")
    for attempt in range(6):
        out = linked_target(folder, old)
        if os.path.lexists(far):
            os.remove(far)
        os.link(out, far)
        kill_when_rewriting(argv, out, old, signal.SIGKILL)
        if read(out) not in (old, new) and os.path.exists(pending):
            break
    else:
        check(False, "other names: no SIGKILL landed during the rewrite in 6 attempts")
        return
    check(marker(out) is not None, "a half-rewritten file carries the note")
    sig = os.path.join(folder, "half.sig")
    for name in (out + ".link", far):
        p = subprocess.run([rdelta, "signature", name, sig], capture_output=True, text=True)
        check(p.returncode == 100 and "rewrite of it was interrupted" in p.stderr and pending in p.stderr
              and not os.path.exists(sig),
              f"another hard link of a half-rewritten file is not read (exit {p.returncode}, {p.stderr!r})")
    r = recover(rdelta, far)
    check(r.returncode == 0 and "finished an interrupted rewrite" in r.stderr and read(far) == new
          and read(out) == new and read(out + ".link") == new and not os.path.exists(pending) and marker(far) is None,
          f"recover through a hard link in another folder finishes the rewrite (exit {r.returncode}, {r.stderr!r})")
    p = subprocess.run([rdelta, "signature", far, sig], capture_output=True, text=True)
    check(p.returncode == 0, f"the finished file reads again ({p.stderr!r})")
    # Whoever can write a file cannot have another file's staging file copied into it.
    other = os.path.join(elsewhere, ".other.rdelta-rewrite")
    write(other, b"another file's new content " * 100)
    st = os.stat(far)
    os.setxattr(far, "user.rdelta.unfinished", f"1 rewrite {st.st_dev} {st.st_ino} {other}".encode())
    r = recover(rdelta, far)
    check(r.returncode == 0 and "nothing to do" in r.stderr and read(far) == new and os.path.exists(other),
          f"a note naming a staging file not made for this file is ignored (exit {r.returncode}, {r.stderr!r})")


def read_only_folder(rdelta, work, old, new, delta):
    """Run as nobody in a folder it cannot write: the staging file is
    `.rdelta-rewrite-DEV-INO` in $TMPDIR, and recovery finds it there (through the
    note on the file, even without $TMPDIR)."""
    if os.geteuid() != 0:
        print("note: the read-only-folder case needs root to run as another user; not run", flush=True)
        return
    nobody = dict(user=65534, group=65534, extra_groups=[])
    home = os.path.join(work, "ro")
    tmp = os.path.join(work, "ro-tmp")
    os.mkdir(home)
    os.mkdir(tmp)
    os.chown(tmp, 65534, 65534)
    os.chmod(work, 0o755)
    for n in ("basis", "new.delta"):
        os.chmod(os.path.join(work, n), 0o644)
    out = os.path.join(home, "out")
    env = dict(os.environ, TMPDIR=tmp)
    for attempt in range(6):
        write(out, old)
        os.chown(out, 65534, 65534)
        for n in os.listdir(tmp):
            os.remove(os.path.join(tmp, n))
        kill_when_rewriting([rdelta, "patch", "-f", os.path.join(work, "basis"), delta], out, old, signal.SIGKILL,
                            env=env, **nobody)
        if read(out) not in (old, new) and os.listdir(tmp):
            break
    else:
        check(False, "read-only folder: no SIGKILL landed during the rewrite in 6 attempts")
        return
    st = os.stat(out)
    left = os.listdir(tmp)
    check(left == [f".rdelta-rewrite-{st.st_dev:x}-{st.st_ino}"] and os.listdir(home) == ["out"],
          f"read-only folder: the staging file is named for the file's device and inode in $TMPDIR ({left})")
    # Where the file can name its staging file, recovery needs no $TMPDIR.
    noted = attributes_here(tmp)
    renv = {k: v for k, v in os.environ.items() if k != "TMPDIR"} if noted else env
    r = recover(rdelta, out, env=renv, **nobody)
    check(r.returncode == 0 and read(out) == new and not os.listdir(tmp) and os.stat(out).st_ino == st.st_ino,
          f"read-only folder: `rdelta recover` finishes the rewrite from $TMPDIR "
          f"({'without' if noted else 'with'} $TMPDIR set: exit {r.returncode}, {r.stderr!r})")


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
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", mnt]).returncode != 0:
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
    sys.exit(summary())


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
        recovery_rules(rdelta, work, old, new, delta)
        other_names(rdelta, work, old, new, delta)
        read_only_folder(rdelta, work, old, new, delta)
        full_disk(rdelta, work, False)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(summary())


if __name__ == "__main__":
    main()
