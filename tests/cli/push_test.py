#!/usr/bin/env python3
"""`rdelta push IMAGE HOST:PATH` against a real sshd on 127.0.0.1 (its own host key,
client key and configuration in a temporary folder): the first push creates the
remote copy, later ones send small deltas and rotate the kept signature; a
connection killed mid-stream leaves the remote image as it was, a success that
never came back is set right by the next push (remote signature fetched), a remote
patch killed mid-write is rolled back by the next push's patch; a remote PATH that
is a directory takes the image inside, in the very directory the remote opened
(its name swapped meanwhile), and --name-in-dir does the same locally; bad
destinations, an unreachable host, a missing remote rdelta and a missing remote
directory fail with one clear line. A kept
signature in a shared folder (root pushing, nobody planting, fs.protected_* at 0
and 1): planted symlinks, FIFOs and lock files refused, never followed or waited
on; a folder others could swap names in refused; a garbage store dropped and
resynced once (push_store_trust.py). The sshd and push's driver: push_session.py.
Usage: push_test.py --rdelta PATH --rdelta-test PATH (the build with the test hooks:
the remote patch killed after a journal batch). Skips (77) when sshd is not installed."""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from file_ops import read as content
from push_session import MiB, SSHD, edit, free_port, kept_signature_is_images, pusher, start_sshd
from push_store_trust import shared_store
from tally import check, summary

def wrapper(work, name, body):
    """A stand-in for ssh (python), passed with --ssh before the real ssh words."""
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write("#!/usr/bin/env python3\nimport os, signal, subprocess, sys\n" + body)
    os.chmod(path, 0o755)
    return path


# Forwards stdin to the real ssh until N bytes went through, then kills it: the
# connection drops in the middle of the delta.
DROP_AFTER = """
limit = int(sys.argv[1])
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE)
sent = 0
while sent < limit:
    chunk = os.read(0, min(65536, limit - sent))
    if not chunk:
        break
    p.stdin.write(chunk); p.stdin.flush(); sent += len(chunk)
p.kill(); p.wait()
sys.exit(255)
"""
# Lets the whole session run, then reports a dropped connection: the remote applied
# the delta, but its success never reached push.
LOSE_SUCCESS = """
sys.exit(255 if subprocess.run(sys.argv[1:]).returncode == 0 else 1)
"""
def scenarios(rdelta, rdelta_test, work, ssh, direct):
    rng = random.Random(7)
    image, remote_dir = os.path.join(work, "disk.img"), os.path.join(work, "remote dir")
    os.mkdir(remote_dir)
    remote = os.path.join(remote_dir, "it's disk.img")  # a blank and a quote for the remote shell
    dest = "root@127.0.0.1:" + remote
    store = os.path.join(work, "disk.sig")
    p = pusher(rdelta, ssh, store)
    with open(image, "wb") as f:
        f.write(rng.randbytes(3 * MiB) + bytes(MiB) + rng.randbytes(MiB // 2 + 123))
    size = os.path.getsize(image)

    r, s = p.run(image, dest)
    check(r.returncode == 0 and content(remote) == content(image),
          f"the first push creates the remote copy ({r.returncode}, {r.stderr!r})")
    check(s.get("mode") == "new-file" and s.get("ssh_sessions") == 2, f"it fetched nothing there was: {s}")
    check(os.path.exists(store) and kept_signature_is_images(rdelta, store, image),
          "the kept signature is the image's")
    check(not os.path.lexists(store + ".lock"), "the lock file is gone once push is done")
    check(any(line.startswith("rdelta: push: ") and "verified" in line for line in r.stderr.splitlines()),
          f"a one-line summary ({r.stderr!r})")

    old = content(image)
    edit(image, rng, 5)
    r, s = p.run(image, dest)
    check(r.returncode == 0 and content(remote) == content(image), f"the second push updates it ({r.stderr!r})")
    check(s.get("mode") == "in-place" and 0 < s.get("delta_bytes", size) < size // 20 and s.get("signature_bytes") == 0,
          f"a small delta and no signature on the wire: {s}")
    check(kept_signature_is_images(rdelta, store, image) and not os.path.exists(store + ".next"),
          "the kept signature rotated to the new image's")
    kept_root = os.path.join(work, ".disk.sig.rdelta-root")
    check(os.path.exists(kept_root) and content(kept_root).startswith(b"rdelta-root 1 "),
          "the remote image's root is kept beside the signature")

    # ssh killed while the delta streams: the remote image is untouched, nothing rotates.
    old, old_store = content(image), content(store)
    new = edit(image, rng, 300)
    drop = wrapper(work, "drop", DROP_AFTER)
    r, s = p.run(image, dest, ssh=[drop, "200000"] + direct)
    check(r.returncode != 0 and content(remote) == old, f"a connection dropped mid-stream changes nothing there ({r.returncode})")
    check(content(store) == old_store and not os.path.lexists(store + ".lock"),
          "the kept signature did not rotate, and the lock file is gone")
    check("ssh" in r.stderr.splitlines()[-1] and "255" in r.stderr.splitlines()[-1],
          f"the last line says ssh failed ({r.stderr!r})")
    r, s = p.run(image, dest)
    check(r.returncode == 0 and content(remote) == new and s.get("mode") == "in-place",
          f"the next push applies it ({r.stderr!r}, {s})")

    # The remote applied, but its success was lost: the next push resyncs.
    new = edit(image, rng, 10)
    lose = wrapper(work, "lose", LOSE_SUCCESS)
    old_store = content(store)
    r, s = p.run(image, dest, ssh=[lose] + ssh)
    check(r.returncode != 0 and content(remote) == new and content(store) == old_store,
          f"a lost success: remote new, kept signature old ({r.returncode})")
    new = edit(image, rng, 3)
    r, s = p.run(image, dest)
    check(r.returncode == 0 and content(remote) == new, f"the next push catches up, verified ({r.stderr!r}, {s})")
    # Its delta named the kept signature's image, which the remote no longer is.
    check(s.get("mode") == "resync", f"the delta for the old image was refused there, then resynced: {s}")
    check(kept_signature_is_images(rdelta, store, image), "and keeps the image's signature")

    # The remote holds what the kept signature does not describe (changed there): its
    # patch refuses the delta unchanged, and push fetches its signature.
    with open(remote, "r+b") as f:
        f.seek(3 * MiB + 5000)
        f.write(b"changed on the remote side")
    new = edit(image, rng, 3)
    r, s = p.run(image, dest)
    check(r.returncode == 0 and content(remote) == new and s.get("mode") == "resync" and s.get("signature_bytes", 0) > 0
          and s.get("ssh_sessions") == 3, f"a remote at another state: its signature fetched, then updated ({r.stderr!r}, {s})")
    check("fetching its signature" in r.stderr and "127.0.0.1: " not in r.stderr,
          f"push says why it fetches, not the remote's refusal ({r.stderr!r})")
    check(kept_signature_is_images(rdelta, store, image), "the kept signature is the image's again")

    # The remote patch (rdelta-test, which obeys the hooks) killed between two journal
    # batches: the next push's patch rolls it back and applies.
    killer = os.path.join(work, "rdelta-killed")
    with open(killer, "w") as f:
        f.write(f"#!/bin/sh\nRDELTA_INPLACE_BATCH_BYTES=65536 RDELTA_TEST_KILL_AFTER_BATCH=2 exec '{rdelta_test}' \"$@\"\n")
    os.chmod(killer, 0o755)
    old, new = content(image), edit(image, rng, 200)
    r, s = p.run(image, dest, remote=killer)
    check(r.returncode != 0 and os.path.exists(os.path.join(remote_dir, ".it's disk.img.rdelta-journal")),
          f"a remote patch killed mid-write leaves its journal ({r.returncode}, {r.stderr!r})")
    r, s = p.run(image, dest)
    check(r.returncode == 0 and content(remote) == new and s.get("mode") == "in-place" and s.get("signature_bytes") == 0,
          f"the next push rolls back and applies, in place against the kept signature ({r.stderr!r}, {s})")

    # The remote file deleted: its patch cannot open it, the fetch finds nothing, and
    # the image goes whole again.
    os.unlink(remote)
    r, s = p.run(image, dest)
    check(r.returncode == 0 and content(remote) == new and s.get("mode") == "new-file" and s.get("ssh_sessions") == 3,
          f"a deleted remote file is copied again ({r.stderr!r}, {s})")

    # No kept signature (a new cache): the remote's is fetched once; the default store
    # is under $XDG_CACHE_HOME/rdelta/push.
    new = edit(image, rng, 2)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache"))
    args = [rdelta, "push", "-q", "--ssh", " ".join(ssh), "--remote-rdelta", rdelta, image, dest]
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    kept = os.listdir(os.path.join(work, "cache", "rdelta", "push")) if r.returncode == 0 else []
    check(r.returncode == 0 and content(remote) == new and r.stderr == "", f"-q is quiet ({r.stderr!r})")
    sig = [k for k in kept if k.startswith("disk.img-") and k.endswith(".sig")]
    check(len(sig) == 1 and kept_signature_is_images(rdelta, os.path.join(work, "cache", "rdelta", "push", sig[0]), image),
          f"without a kept signature the remote's is fetched; the default store is under the cache ({kept})")


def sparse_image(rdelta, work, ssh):
    """A sparse image's first push costs its data (the delta is compressed by default,
    its holes go as zeros that compress to almost nothing) and stays sparse there;
    --no-compress sends the literal zeros; an unchanged image sends next to nothing."""
    rng = random.Random(11)
    size = 64 * MiB
    image = os.path.join(work, "sparse.img")
    with open(image, "wb") as f:
        f.truncate(size)
        for at, n in ((0, MiB), (20 * MiB, MiB // 2), (size - MiB // 2, MiB // 2)):  # 2 MiB that do not compress
            f.seek(at)
            f.write(rng.randbytes(n))
    on_disk = os.stat(image).st_blocks * 512
    # The file's delta against an empty signature (holes not read) is the stream's.
    sig = os.path.join(work, "empty.sig")
    subprocess.run([rdelta, "signature", "-f", "-b", "32768", "/dev/null", sig], check=True)
    from_file = subprocess.run([rdelta, "delta", sig, image, "-"], capture_output=True).stdout
    with open(image, "rb") as f:
        from_pipe = subprocess.run([rdelta, "delta", sig, "-", "-"], stdin=f, capture_output=True).stdout
    check(len(from_file) > size and from_file == from_pipe, "a sparse file's first delta is the stream's, byte for byte")
    for extra, name in (((), "sparse-copy.img"), (("--no-compress",), "dense-wire.img")):
        remote = os.path.join(work, "remote dir", name)
        p = pusher(rdelta, ssh, os.path.join(work, name + ".sig"))
        r, s = p.run(image, "root@127.0.0.1:" + remote, *extra)
        same = r.returncode == 0 and content(remote) == content(image)
        blocks = os.stat(remote).st_blocks * 512 if same else -1
        check(same and s.get("mode") == "new-file" and 0 <= blocks <= on_disk + MiB,
              f"{extra}: the first push of a sparse image makes an identical, sparse copy "
              f"({r.stderr!r}, {blocks} bytes on disk for {on_disk})")
        if extra:
            check(s.get("compression") == "none" and s.get("delta_bytes", 0) > size,
                  f"--no-compress sends the holes' zeros as they are: {s}")
        else:
            check(s.get("compression") == "zstd" and 0 < s.get("delta_bytes", size) < on_disk + 256 * 1024,
                  f"compressed by default, the first push sends about the image's data, not its length: {s}")
            r, s = p.run(image, "root@127.0.0.1:" + remote)
            check(r.returncode == 0 and s.get("mode") == "in-place" and 0 < s.get("delta_bytes", size) < 256 * 1024,
                  f"an unchanged image's push sends less than 256 KiB ({r.stderr!r}, {s})")


def stopped_process(words, timeout=20):
    """The pid of a stopped process whose command line holds `words`, or None."""
    for _ in range(timeout * 20):
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                state = content(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()[0]
                if state == b"T" and words in content(f"/proc/{pid}/cmdline"):
                    return int(pid)
            except (OSError, IndexError):
                pass
        time.sleep(0.05)
    return None


def into_directory(rdelta, rdelta_test, work, ssh):
    """A remote PATH that is a directory, with or without a '/', takes the image
    inside it under its own name, as scp and rsync do; the remote side works in the
    directory it opened, whatever that name leads to meanwhile."""
    rng = random.Random(13)
    image = os.path.join(work, "dir.img")
    with open(image, "wb") as f:
        f.write(rng.randbytes(2 * MiB))
    folder = os.path.join(work, "remote dir", "backups")
    os.mkdir(folder)
    inside = os.path.join(folder, "dir.img")
    p = pusher(rdelta, ssh, os.path.join(work, "dir-slash.sig"))
    r, s = p.run(image, "root@127.0.0.1:" + folder + "/")
    check(r.returncode == 0 and os.path.isdir(folder) and content(inside) == content(image)
          and s.get("mode") == "new-file", f"HOST:DIR/ takes the image as DIR/NAME ({r.stderr!r}, {s})")
    edit(image, rng, 5)
    r, s = p.run(image, "root@127.0.0.1:" + folder + "/")
    check(r.returncode == 0 and content(inside) == content(image) and s.get("mode") == "in-place"
          and s.get("signature_bytes") == 0, f"and the next push updates it in place ({r.stderr!r}, {s})")
    q = pusher(rdelta, ssh, os.path.join(work, "dir-bare.sig"))
    edit(image, rng, 5)
    r, s = q.run(image, "root@127.0.0.1:" + folder)
    check(r.returncode == 0 and os.path.isdir(folder) and content(inside) == content(image)
          and s.get("signature_bytes", 0) > 0 and s.get("mode") == "in-place",
          f"HOST:DIR without '/' is the same file: its signature fetched, then updated ({r.stderr!r}, {s})")
    link = os.path.join(work, "remote dir", "backups-link")
    os.symlink(folder, link)
    edit(image, rng, 5)
    p = pusher(rdelta, ssh, os.path.join(work, "dir-link.sig"))  # the store that describes the remote now
    r, s = p.run(image, "root@127.0.0.1:" + link)
    check(r.returncode == 0 and os.path.islink(link) and content(inside) == content(image),
          f"a symlink of root's to the directory leads into it ({r.stderr!r}, {s})")

    # The directory renamed away while the remote patch, stopped by a test hook, is
    # in it, and a copy made under its name: the update goes to the directory it
    # opened, not the copy.
    stopper = os.path.join(work, "rdelta-stops")
    with open(stopper, "w") as f:
        f.write(f"#!/bin/sh\n[ \"$1\" = patch ] && export RDELTA_TEST_STOP_IN_TARGET_FOLDER=1\nexec '{rdelta_test}' \"$@\"\n")
    os.chmod(stopper, 0o755)
    before, new = content(inside), edit(image, rng, 5)
    push = subprocess.Popen(p.args(image, "root@127.0.0.1:" + folder + "/", remote=stopper),
                            stderr=subprocess.PIPE, text=True)
    stopped = stopped_process(b"patch\0--name-in-dir\0")
    if stopped:
        os.rename(folder, folder + ".old")
        shutil.copytree(folder + ".old", folder)
        os.kill(stopped, signal.SIGCONT)
    _, err = push.communicate(timeout=60)
    check(stopped and push.returncode == 0 and content(folder + ".old/dir.img") == new and content(inside) == before,
          f"the remote patch works in the directory it opened, not the one swapped in ({stopped}, {err!r})")
    if os.path.isdir(folder + ".old"):
        shutil.rmtree(folder)
        os.rename(folder + ".old", folder)

    # The directory gone under a kept signature: one line, not a full copy elsewhere.
    os.rename(folder, folder + ".gone")
    old_store = content(p.store)
    r, s = p.run(image, "root@127.0.0.1:" + folder + "/")
    want = f"rdelta: push: root@127.0.0.1:{folder}/: remote directory {folder} does not exist"
    check(r.returncode == 100 and r.stderr.strip() == want and not os.path.exists(folder),
          f"a remote directory removed since the last push is one line ({r.returncode}, {r.stderr!r})")
    check(content(p.store) == old_store and not os.path.lexists(p.store + ".lock"),
          "the kept signature stays, and no lock file")
    os.rename(folder + ".gone", folder)


def missing_directories(rdelta, work, ssh):
    """A remote file whose directory is missing or no directory: one line naming
    HOST:PATH and what is wrong, status 100 (rdiff's for a missing file)."""
    image = os.path.join(work, "disk.img")
    nope, plain = os.path.join(work, "nope"), os.path.join(work, "remote dir", "plain file")
    with open(plain, "wb") as f:
        f.write(b"not a directory")
    for path, words in ((nope + "/disk.img", f"remote directory {nope} does not exist"),
                        (nope + "/deeper/disk.img", f"remote directory {nope}/deeper does not exist"),
                        (nope + "/", f"remote directory {nope} does not exist"),
                        (plain + "/disk.img", f"remote {plain} is not a directory"),
                        (plain + "/", f"remote {plain} is not a directory")):
        store = os.path.join(work, "missing.sig")
        r, s = pusher(rdelta, ssh, store).run(image, "root@127.0.0.1:" + path)
        want = f"rdelta: push: root@127.0.0.1:{path}: {words}"
        check(r.returncode == 100 and r.stderr.strip() == want, f"{path}: {want!r} ({r.returncode}, {r.stderr!r})")
        check(not os.path.exists(nope) and content(plain) == b"not a directory" and not os.path.lexists(store)
              and not os.path.lexists(store + ".lock"), f"{path}: nothing made on either side")


def errors(rdelta, work, ssh, direct):
    image = os.path.join(work, "disk.img")
    def push(*args):
        return subprocess.run([rdelta, "push", *args], capture_output=True, text=True, timeout=60)
    for args, what in (((image,), "no destination"), ((image, "nocolon"), "no ':'"), ((image, "host:"), "no path"),
                       ((image, "-oProxyCommand=x:y"), "a host like an option")):
        r = push(*args)
        check(r.returncode == 101 and len(r.stderr.splitlines()) == 1, f"{what}: usage error, one line ({r.stderr!r})")
    closed = direct.copy()
    closed[closed.index("-p") + 1] = str(free_port())
    r = push("--ssh", " ".join(closed), "--signature-store", os.path.join(work, "x.sig"), image, "127.0.0.1:/x")
    last = r.stderr.splitlines()[-1] if r.stderr else ""
    check(r.returncode == 100 and "ssh exited with 255" in last, f"an unreachable host ({r.returncode}, {r.stderr!r})")
    r = push("--ssh", " ".join(ssh), "--remote-rdelta", "/nonexistent/rdelta", "--signature-store",
             os.path.join(work, "y.sig"), image, "127.0.0.1:" + os.path.join(work, "y.img"))
    check(r.returncode == 100 and "--remote-rdelta" in r.stderr.splitlines()[-1],
          f"no rdelta on the remote host ({r.stderr!r})")
    r = push("--ssh", "ssh 'unbalanced", image, "h:/x")
    check(r.returncode == 101, f"an unbalanced --ssh ({r.stderr!r})")
    r = push(os.path.join(work, "missing.img"), "h:/x")
    check(r.returncode == 100 and "missing.img" in r.stderr, f"a missing image ({r.stderr!r})")
    r = subprocess.run([rdelta, "signature", "--ssh", "ssh", image, "/dev/null"], capture_output=True, text=True)
    check(r.returncode == 101 and "--ssh" in r.stderr, f"--ssh belongs to push ({r.stderr!r})")

    # --name-in-dir, which push passes to the rdelta it runs there, here.
    folder = os.path.join(work, "named")
    os.mkdir(folder)
    shutil.copy(image, os.path.join(folder, "disk.img"))
    want = subprocess.run([rdelta, "signature", image, "-"], capture_output=True).stdout
    for path in (folder, folder + "/", folder + "/.", os.path.join(folder, "disk.img"), os.path.join(work, ".")):
        r = subprocess.run([rdelta, "signature", "--name-in-dir", "disk.img", path, "-"], capture_output=True)
        check(r.returncode == 0 and r.stdout == want, f"signature --name-in-dir disk.img {path} ({r.stderr!r})")
    for args, what in ((("signature", "--name-in-dir", "a/b", folder, "-"), "a name with '/'"),
                       (("signature", "--name-in-dir", ".."), "'..'"),
                       (("signature", "--name-in-dir", "disk.img"), "standard input"),
                       (("delta", "--name-in-dir", "disk.img", "x.sig"), "another command")):
        r = subprocess.run([rdelta, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        check(r.returncode == 101 and "--name-in-dir" in r.stderr and len(r.stderr.splitlines()) == 1,
              f"--name-in-dir with {what}: usage error ({r.returncode}, {r.stderr!r})")
    # The other names stay where they were: SIGNATURE relative to the caller's folder.
    r = subprocess.run([rdelta, "signature", "--name-in-dir", "disk.img", "named", "out.sig"], cwd=work,
                       capture_output=True)
    check(r.returncode == 0 and content(os.path.join(work, "out.sig")) == want
          and not os.path.exists(os.path.join(folder, "out.sig")),
          f"--name-in-dir leaves the other relative names where they were ({r.stderr!r})")
    nope = os.path.join(work, "nope")
    for path, words in ((nope + "/", f"directory {nope} does not exist"),
                        (image + "/x.img", f"{image} is not a directory")):
        r = subprocess.run([rdelta, "patch", "--name-in-dir", "disk.img", "/dev/null", "/dev/null", path],
                           capture_output=True, text=True)
        check(r.returncode == 100 and r.stderr == f"rdelta: {path}: {words}\n", f"{path}: {r.stderr!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rdelta", required=True)
    parser.add_argument("--rdelta-test", required=True)
    args = parser.parse_args()
    rdelta, rdelta_test = os.path.abspath(args.rdelta), os.path.abspath(args.rdelta_test)
    if not os.path.exists(SSHD):
        print("sshd is not installed (.ci/install-deps installs openssh-server): skipped")
        return 77
    with tempfile.TemporaryDirectory() as work:
        sshd, direct, ssh = start_sshd(work)
        try:
            scenarios(rdelta, rdelta_test, work, ssh, direct)
            sparse_image(rdelta, work, ssh)
            into_directory(rdelta, rdelta_test, work, ssh)
            missing_directories(rdelta, work, ssh)
            shared_store(rdelta, work, ssh)
            errors(rdelta, work, ssh, direct)
        finally:
            subprocess.run(ssh + ["-O", "exit", "127.0.0.1"], capture_output=True)
            sshd.terminate()
            sshd.wait()
    return summary()


if __name__ == "__main__":
    sys.exit(main())
