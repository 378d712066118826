#!/usr/bin/env python3
"""How outputs are published (man page, SAFETY): symlinks are written through,
descriptor names are streams, a replaced file keeps its owner, group, mode (never
setuid/setgid), ACLs, xattrs and hard links, a file the caller may not write is
refused, read-only folders and long names work, outputs are named temporary files
where /proc is missing, and a file that appears while
rdelta runs is never clobbered. Each case failed before the rule was implemented.
Root-only cases (other owners, a private /dev) are skipped with a message otherwise.
Usage: safety_outputs_test.py --rdelta PATH. Prints 'N passed, M failed'."""
import argparse
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time

from build_kind import sanitized
from tally import check, skip, summary


NOBODY, NOGROUP = 65534, 65534


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def as_nobody():
    os.setgroups([])
    os.setgid(NOGROUP)
    os.setuid(NOBODY)


def acl_blob(entries):
    """A system.posix_acl_access value: version 2, then (tag, perm, id) entries."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in entries)


def xattr(path, key):
    try:
        return os.getxattr(path, key)
    except OSError:
        return None


def no_temp_files(folder):
    return [n for n in os.listdir(folder) if ".rdelta-" in n or n.startswith(".rdelta")]


class Runner:
    def __init__(self, rdelta):
        self.rdelta = rdelta

    def run(self, *args, user=None, **kw):
        kw.setdefault("stdout", subprocess.PIPE)
        return subprocess.run([self.rdelta, *args], stderr=subprocess.PIPE, preexec_fn=user, **kw)


def symlink_cases(r, sig):
    write("target", b"old")
    os.symlink("target", "lnk")
    p = r.run("signature", "a", "lnk", "-f")
    check(p.returncode == 0 and os.path.islink("lnk") and read("target") == sig,
          f"-f through a symlink writes its target and keeps the link (exit {p.returncode})")
    os.symlink("nowhere", "dangling")
    p = r.run("signature", "a", "dangling")
    check(p.returncode == 0 and os.path.islink("dangling") and read("nowhere") == sig,
          "a dangling symlink creates the file it names, as rdiff does, and stays a link")
    os.makedirs("sub/deeper")
    write("sub/t2", b"old")
    os.symlink("../t2", "sub/deeper/rel")
    os.symlink("sub/deeper/rel", "chain")
    p = r.run("signature", "a", "chain", "-f")
    check(p.returncode == 0 and os.path.islink("chain") and read("sub/t2") == sig and not no_temp_files("sub")
          and not no_temp_files("sub/deeper"), "a chain of relative symlinks is followed to its end")
    os.symlink("target", "lnk2")
    p = r.run("signature", "a", "lnk2")
    check(p.returncode == 100 and read("target") == sig and b"exists" in p.stderr,
          "a symlink to an existing file still needs --force")
    # A link to a descriptor name is a stream: the shell's redirection gets the bytes.
    os.symlink("/proc/self/fd/1", "to_stdout")
    with open("via_link.sig", "wb") as out:
        p = r.run("signature", "a", "to_stdout", "-f", stdout=out)
    check(p.returncode == 0 and os.path.islink("to_stdout") and read("via_link.sig") == sig,
          "a symlink to /proc/self/fd/1 writes standard output")
    write("log", b"earlier line\n")
    with open("log", "ab") as out:
        p = r.run("signature", "a", "/dev/fd/1", "-f", stdout=out)
    check(p.returncode == 0 and read("log") == b"earlier line\n" + sig,
          "/dev/fd/1 opened for appending is appended to, not truncated")


def private_dev_case(r, sig):
    """The system's /dev/stdout must never be replaced: try it inside a private mount
    namespace with its own /dev, so a regression cannot harm the machine."""
    # Never run the real /dev/stdout case outside the namespace: a regression would
    # replace the machine's /dev/stdout.
    if os.geteuid() != 0 or not shutil.which("unshare"):
        skip("/dev/stdout in a private mount namespace needs root and unshare")
        return
    script = (f"mount -t tmpfs none /dev && ln -s /proc/self/fd/1 /dev/stdout && "
              f"'{r.rdelta}' signature a /dev/stdout -f > ns.sig && test -L /dev/stdout && echo still-a-link")
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script], capture_output=True)
    check(p.returncode == 0 and b"still-a-link" in p.stdout and os.path.exists("ns.sig") and read("ns.sig") == sig,
          f"/dev/stdout stays a symlink in a private /dev (exit {p.returncode}, {p.stderr!r})")


def replace_cases(r, new, delta):
    if os.geteuid() != 0:
        skip("owner, setuid and ACL cases need root")
        return
    # A setuid file of another user: owner kept, setuid and setgid never kept.
    write("suid", b"old content")
    os.chown("suid", NOBODY, NOGROUP)
    os.chmod("suid", 0o6755)
    os.setxattr("suid", "user.origin", b"backup-set-7")
    acl = acl_blob([(0x01, 7, 0xFFFFFFFF), (0x02, 4, 1234), (0x04, 5, 0xFFFFFFFF), (0x10, 5, 0xFFFFFFFF),
                    (0x20, 5, 0xFFFFFFFF)])
    try:
        os.setxattr("suid", "system.posix_acl_access", acl)
        has_acl = True
    except OSError:
        has_acl = False
        skip("this filesystem has no POSIX ACLs")
    p = r.run("patch", "a", "d", "suid", "-f")
    st = os.stat("suid")
    check(p.returncode == 0 and read("suid") == new, f"patch -f over a setuid file (exit {p.returncode})")
    check((st.st_uid, st.st_gid) == (NOBODY, NOGROUP), f"owner kept: {st.st_uid}:{st.st_gid}")
    check(stat.S_IMODE(st.st_mode) == 0o755, f"mode kept without setuid/setgid: {oct(st.st_mode)}")
    check(xattr("suid", "user.origin") == b"backup-set-7", "user xattr kept")
    if has_acl:
        check(xattr("suid", "system.posix_acl_access") == acl, "POSIX ACL kept")
    # A 0640 file of another user and group.
    write("private", b"old")
    os.chown("private", NOBODY, NOGROUP)
    os.chmod("private", 0o640)
    p = r.run("patch", "a", "d", "private", "-f")
    st = os.stat("private")
    check(p.returncode == 0 and read("private") == new and (st.st_uid, st.st_gid) == (NOBODY, NOGROUP)
          and stat.S_IMODE(st.st_mode) == 0o640, f"0640 file of another user keeps owner and mode: {oct(st.st_mode)}")
    # Hard links: every name sees the new content (one inode), setuid cleared there too.
    write("linked", b"old")
    os.chmod("linked", 0o4755)
    os.link("linked", "other_name")
    ino = os.stat("linked").st_ino
    p = r.run("patch", "a", "d", "linked", "-f")
    check(p.returncode == 0 and read("other_name") == new and read("linked") == new
          and os.stat("linked").st_ino == ino and os.stat("other_name").st_nlink == 2,
          f"hard links all see the new content (exit {p.returncode})")
    check(stat.S_IMODE(os.stat("linked").st_mode) == 0o755, "a rewritten inode loses setuid")
    check(not no_temp_files("."), f"no temporary file left: {no_temp_files('.')}")


def non_root_cases(r, sig, new):
    if os.geteuid() != 0:
        skip("cases run as another user need root to switch to it")
        return
    home = tempfile.mkdtemp(prefix="rdelta-nobody-", dir="/tmp")
    os.chmod(home, 0o755)
    os.chown(home, NOBODY, NOGROUP)
    for name in ("a", "d", "a.sig"):
        shutil.copy(name, home)
        os.chmod(os.path.join(home, name), 0o644)
    cwd = os.getcwd()
    os.chdir(home)
    try:
        write("readonly", b"theirs")
        os.chown("readonly", NOBODY, NOGROUP)
        os.chmod("readonly", 0o444)
        p = r.run("patch", "a", "d", "readonly", "-f", user=as_nobody)
        check(p.returncode == 100 and read("readonly") == b"theirs" and b"readonly" in p.stderr,
              f"a file without write permission is refused, as rdiff does (exit {p.returncode})")
        os.mkdir("rofolder")
        write("rofolder/out", b"old")
        os.chown("rofolder/out", NOBODY, NOGROUP)
        os.chown("rofolder", NOBODY, NOGROUP)
        os.chmod("rofolder", 0o555)
        p = r.run("patch", "a", "d", "rofolder/out", "-f", user=as_nobody)
        check(p.returncode == 0 and read("rofolder/out") == new and os.listdir("rofolder") == ["out"],
              f"a writable file in a read-only folder is rewritten (exit {p.returncode}, {p.stderr!r})")
        write("shared", b"old")
        os.chown("shared", 0, NOGROUP)
        os.chmod("shared", 0o664)
        os.chown(".", 0, 0)
        os.chmod(".", 0o777)
        p = r.run("patch", "a", "d", "shared", "-f", user=lambda: (os.setgroups([NOGROUP]), os.setgid(NOGROUP),
                                                                     os.setuid(NOBODY)))
        st = os.stat("shared")
        check(p.returncode == 0 and read("shared") == new and st.st_uid == 0,
              f"a group-writable file of another user keeps its owner (uid {st.st_uid}, exit {p.returncode})")
    finally:
        os.chdir(cwd)
        os.chmod(os.path.join(home, "rofolder"), 0o755)
        shutil.rmtree(home)


def name_cases(r, sig):
    long_name = "x" * 250
    p = r.run("signature", "a", long_name)
    check(p.returncode == 0 and read(long_name) == sig, f"a 250-byte output name (exit {p.returncode}, {p.stderr!r})")
    p = r.run("signature", "a", long_name, "-f")
    check(p.returncode == 0 and read(long_name) == sig, "replacing a 250-byte output name")
    longest = "y" * 255
    p = r.run("signature", "a", longest)
    check(p.returncode == 0 and read(longest) == sig, "a 255-byte output name")
    check(not no_temp_files("."), "no temporary file left by long names")


def race_cases(r, sig):
    """An output that appears while rdelta runs (its input is a pipe held open)."""
    piped = subprocess.run(f"cat a | '{r.rdelta}' signature", shell=True, capture_output=True).stdout
    for force in (False, True):
        out = f"appeared_{int(force)}"
        args = ["signature", "-", out] + (["-f"] if force else [])
        proc = subprocess.Popen([r.rdelta, *args], stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.3)  # past the start-up check
        write(out, b"someone else's file")
        proc.stdin.write(read("a"))
        proc.stdin.close()
        err = proc.stderr.read()
        rc = proc.wait()
        if force:
            check(rc == 0 and read(out) == piped, "with --force a file that appeared meanwhile is replaced")
        else:
            check(rc == 100 and read(out) == b"someone else's file" and b"exists" in err,
                  f"a file that appeared meanwhile is kept and the run fails (exit {rc}, {err!r})")
        check(not no_temp_files("."), f"no temporary file left after the race: {no_temp_files('.')}")


def durability_case(r):
    if not shutil.which("strace"):
        skip("strace is not installed")
        return
    # LeakSanitizer cannot run under ptrace: a sanitizer build is traced without it.
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    for extra in ([], ["-f"]):   # named by a link (new), by a link and a rename (replacing)
        p = subprocess.run(["strace", "-f", "-e", "trace=fsync,fdatasync,rename,renameat2,linkat", r.rdelta, "signature",
                            "--fsync", *extra, "a", "durable.sig"], capture_output=True, text=True, env=env)
        calls = [line for line in p.stderr.splitlines() if "fsync(" in line or "rename" in line or "link" in line]
        order = [("fsync" if "fsync(" in c else "publish") for c in calls]
        while order[1:2] == ["publish"] and order[2:3] == ["publish"]:
            del order[1]
        check(p.returncode == 0 and order[:3] == ["fsync", "publish", "fsync"],
              f"with --fsync {extra} the output is flushed before it is named and its folder after: {calls}")
    for extra in ([], ["--no-fsync"], ["--fsync", "--no-fsync"]):
        p = subprocess.run(["strace", "-f", "-e", "trace=fsync,fdatasync", r.rdelta, "signature", *extra, "a",
                            "fast.sig", "-f"], capture_output=True, text=True, env=env)
        check(p.returncode == 0 and "fsync(" not in p.stderr and read("fast.sig") == read("a.sig"),
              f"signature {extra} publishes without flushing, as rdiff does")


NO_PROC_SCRIPT = r"""
mount -t tmpfs none /proc || exit 77
R=$1
"$R" signature a fb.sig && "$R" signature -f a fb.sig && cmp -s fb.sig a.sig || { echo "new and -f outputs"; exit 1; }
sleep 2 | "$R" signature - term.sig & pid=$!
n=0; while [ -z "$(ls -A | grep '^\.term\.sig\.rdelta-')" ] && [ $n -lt 400 ]; do sleep 0.01; n=$((n+1)); done
[ $n -lt 400 ] || { echo "no named temporary file appeared"; exit 1; }
kill -TERM $pid; wait $pid; rc=$?
[ $rc = 143 ] && [ ! -e term.sig ] || { echo "SIGTERM: status $rc"; exit 1; }
cp a hl && ln hl hl2 && "$R" patch -f a d hl && cmp -s hl2 b || { echo "hard-linked rewrite"; exit 1; }
left=$(ls -A | grep 'rdelta-')
[ -z "$left" ] || { echo "left behind: $left"; exit 1; }
rm -f fb.sig hl hl2
# SIGKILL leaves a named temporary file; a later run for that name removes it once
# nobody holds its lock and it is ten minutes old, and removes nothing else.
sleep 3 | "$R" signature - k.sig & pid=$!
n=0; while [ -z "$(ls -A | grep '^\.k\.sig\.rdelta-')" ] && [ $n -lt 400 ]; do sleep 0.01; n=$((n+1)); done
kill -KILL $pid; wait $pid
t=$(ls -A | grep '^\.k\.sig\.rdelta-......$')
[ -n "$t" ] || { echo "SIGKILL left no named temporary file"; exit 1; }
"$R" signature a k.sig && [ -e "$t" ] || { echo "a temporary file changed a moment ago was removed"; exit 1; }
echo x > .k.sig.rdelta-Own123 && chown 65534 .k.sig.rdelta-Own123
ln -s a .k.sig.rdelta-Sym123
echo x > .k.sig.rdelta-Lck123
echo x > linked && ln linked .k.sig.rdelta-Lnk123
echo x > .k.sig.rdelta-rewrite && echo x > .k.sig.rdelta-Short && echo x > .k.sig.rdelta-Longer1
echo x > .other.rdelta-Oth123
touch -h -d '-1 hour' "$t" .k.sig.rdelta-* .other.rdelta-Oth123 linked
flock .k.sig.rdelta-Lck123 sh -c 'echo $$ > lk.pid; exec sleep 30' >/dev/null 2>&1 &
n=0; while flock -n .k.sig.rdelta-Lck123 true && [ $n -lt 400 ]; do sleep 0.01; n=$((n+1)); done
"$R" signature -f a k.sig || { echo "signature -f over k.sig"; exit 1; }
kill "$(cat lk.pid)"; wait
[ ! -e "$t" ] || { echo "the temporary file of the killed run is still there"; exit 1; }
for f in Own123 Sym123 Lck123 Lnk123 rewrite Short Longer1; do
  [ -e .k.sig.rdelta-$f ] || [ -L .k.sig.rdelta-$f ] || { echo "removed .k.sig.rdelta-$f"; exit 1; }
done
[ -e .other.rdelta-Oth123 ] || { echo "removed the temporary file of another name"; exit 1; }
rm -f k.sig linked lk.pid .k.sig.rdelta-* .other.rdelta-Oth123
"""


def no_proc_case(r):
    """Without /proc (some containers) outputs cannot be unnamed files linked in at the
    end: they are named temporary files, removed on errors and signals, and the
    ones SIGKILL left are removed by a later run for the same name."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        skip("hiding /proc needs root (unshare -m)")
        return
    if sanitized(r.rdelta):
        skip("a sanitizer build cannot run without /proc (LeakSanitizer reads it)")
        return
    p = subprocess.run(["unshare", "-m", "sh", "-c", NO_PROC_SCRIPT, "sh", r.rdelta], capture_output=True, text=True)
    if p.returncode == 77:
        skip("cannot mount over /proc here")
        return
    check(p.returncode == 0, f"without /proc, named temporary files: {p.stdout.strip()} {p.stderr.strip()[-300:]}")


def output_is_input_case(r):
    """An output written directly that is also an input (the same block device, a
    loop device over the basis file, standard output opened read-write on the
    basis) would overwrite basis bytes that COPYs still read: refused with 100
    before a byte is written. A device output that is not an input still works."""
    mib = 1 << 20
    basis = os.urandom(16 * mib)
    new = basis[mib:] + basis[:mib]  # the last COPY reads the first MiB, written first
    write("ob", basis)
    write("on", new)
    subprocess.run([r.rdelta, "signature", "ob", "ob.sig"], check=True)
    subprocess.run([r.rdelta, "delta", "ob.sig", "on", "od"], check=True)
    with open("ob", "r+b") as f:
        p = r.run("patch", "-f", "ob", "od", "-", stdout=f)
    check(p.returncode == 100 and read("ob") == basis and b"also the input ob" in p.stderr,
          f"patch into standard output opened read-write on the basis is refused (exit {p.returncode}, {p.stderr!r})")
    with open("ob", "r+b") as f:
        p = r.run("signature", "-f", "ob", "/dev/stdout", stdout=f)
    check(p.returncode == 100 and read("ob") == basis, f"signature onto its own input is refused (exit {p.returncode})")
    if os.geteuid() != 0 or not shutil.which("losetup"):
        skip("loop devices need root and losetup")
        return
    lo = subprocess.run(["losetup", "-f", "--show", "ob"], capture_output=True, text=True)
    if lo.returncode != 0:
        skip(f"no loop device here ({lo.stderr.strip()})")
        return
    dev = lo.stdout.strip()
    try:
        for args, what in ((["patch", "-f", dev, "od", dev], "the basis device as the output"),
                           (["patch", "-f", "ob", "od", dev], "a loop device over the basis file as the output"),
                           (["delta", "-f", "ob.sig", dev, dev], "the new file's device as the delta"),
                           (["signature", "-f", dev, dev], "the device as its own signature")):
            p = r.run(*args)
            check(p.returncode == 100 and read("ob") == basis and b"would destroy" in p.stderr,
                  f"{what}: refused, the device unchanged (exit {p.returncode}, {p.stderr!r})")
        write("ob2", basis)
        p = r.run("patch", "-f", "ob2", "od", dev)
        with open(dev, "rb") as f:
            check(p.returncode == 0 and f.read(len(new)) == new,
                  f"a device output that is not an input is written (exit {p.returncode}, {p.stderr!r})")
    finally:
        subprocess.run(["losetup", "-d", dev])


def kernel_copy_case(r):
    """patch copies long COPY runs file to file in the kernel (copy_file_range) where
    the filesystem shares extents, or with --kernel-copy=always, and writes them from a
    second thread elsewhere: the same bytes either way and through a stream, with
    --nocache too, and a hole of the basis stays a hole of the output."""
    if not shutil.which("strace"):
        skip("strace is not installed")
        return
    mib = 1 << 20
    with open("kb", "wb") as f:
        f.write(os.urandom(mib))
        f.seek(3 * mib)  # a 2 MiB hole
        f.write(os.urandom(mib))
    basis = read("kb")
    new = basis[:3 * mib + 100] + b"edit" + basis[3 * mib + 104:]
    write("kn", new)
    subprocess.run([r.rdelta, "signature", "kb", "kb.sig"], check=True)
    subprocess.run([r.rdelta, "delta", "kb.sig", "kn", "kd"], check=True)
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")

    def traced_patch(*extra):
        out = "kout"
        if os.path.exists(out):
            os.unlink(out)
        p = subprocess.run(["strace", "-f", "-e", "trace=copy_file_range", r.rdelta, "patch", *extra, "kb", "kd", out],
                           capture_output=True, text=True, env=env)
        return p.returncode == 0 and read(out) == new, "copy_file_range(" in p.stderr, p

    # By default only a filesystem that shares extents (reflinks, server-side copy)
    # gets kernel copies; on the others the output is written from a second thread.
    fs_type = subprocess.run(["stat", "-f", "-c", "%T", "."], capture_output=True, text=True).stdout.strip()
    sharing = fs_type in ("xfs", "btrfs", "bcachefs", "ocfs2", "zfs", "nfs", "smb2", "cifs")
    ok, kernel, p = traced_patch()
    check(ok and kernel == sharing,
          f"patch on {fs_type} copies COPY runs in the kernel only where extents are shared: "
          f"{kernel} {p.returncode} {p.stderr[-300:]!r}")
    ok, kernel, p = traced_patch("--kernel-copy=never")
    check(ok and not kernel, f"--kernel-copy=never writes every byte: {p.returncode} {p.stderr[-300:]!r}")
    with open("kout", "rb") as f:
        holes = os.lseek(os.open("kb", os.O_RDONLY), 0, os.SEEK_HOLE) < 4 * mib
        check(not holes or os.lseek(f.fileno(), mib + 4096, os.SEEK_DATA) >= 3 * mib,
              "written from a second thread, the basis's hole is a hole of the output")
    ok, kernel, p = traced_patch("--kernel-copy=always")
    check(ok and kernel, f"--kernel-copy=always copies COPY runs in the kernel: {p.returncode} {p.stderr[-300:]!r}")
    with open("kout", "rb") as f:
        holes = os.lseek(os.open("kb", os.O_RDONLY), 0, os.SEEK_HOLE) < 4 * mib
        check(not holes or os.lseek(f.fileno(), mib + 4096, os.SEEK_DATA) >= 3 * mib,
              "the basis's hole is a hole of the output")
    p = subprocess.run([r.rdelta, "patch", "kb", "kd", "-"], capture_output=True)
    check(p.returncode == 0 and p.stdout == new, "patch to standard output writes the same bytes")
    for extra in (["--kernel-copy=always"], ["--kernel-copy=never"]):
        p = subprocess.run([r.rdelta, "patch", "--nocache", "--no-sparse", *extra, "kb", "kd", "kout2", "-f"],
                           capture_output=True)
        check(p.returncode == 0 and read("kout2") == new, f"patch --nocache --no-sparse {extra} writes the same bytes")
    p = subprocess.run([r.rdelta, "--kernel-copy=sometimes", "patch", "kb", "kd", "kout3"], capture_output=True, text=True)
    check(p.returncode == 101 and "--kernel-copy" in p.stderr and not os.path.exists("kout3"),
          f"a bad --kernel-copy value is a usage error: {p.returncode} {p.stderr!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    r = Runner(os.path.abspath(ap.parse_args().rdelta))
    work = tempfile.mkdtemp(prefix="rdelta-safe-out-")
    os.chdir(work)
    basis = os.urandom(200_000)
    new = basis[:100_000] + os.urandom(20_000) + basis[120_000:]
    write("a", basis)
    write("b", new)
    subprocess.run([r.rdelta, "signature", "a", "a.sig"], check=True)
    subprocess.run([r.rdelta, "delta", "a.sig", "b", "d"], check=True)
    sig = read("a.sig")
    symlink_cases(r, sig)
    private_dev_case(r, sig)
    replace_cases(r, new, "d")
    non_root_cases(r, sig, new)
    name_cases(r, sig)
    race_cases(r, sig)
    durability_case(r)
    kernel_copy_case(r)
    output_is_input_case(r)
    no_proc_case(r)
    os.chdir("/")
    shutil.rmtree(work)
    sys.exit(summary())


if __name__ == "__main__":
    main()
