"""push_store_trust.py - push's kept signature in a folder other users can write
(push_test.py): root pushing, nobody planting symlinks, FIFOs and lock files at the
store's names with fs.protected_* at 0 and 1; a garbage store dropped and resynced;
store folders others could swap names in refused; the lock's life."""
import fcntl
import os
import random
import stat
import subprocess

from as_user import as_nobody
from file_ops import read as content
from push_session import MiB, edit, kept_signature_is_images, pusher
from tally import check


NOBODY, NOGROUP = 65534, 65534
SYSCTLS = ("protected_symlinks", "protected_regular", "protected_fifos")




def set_sysctls(value):
    try:
        for name in SYSCTLS:
            with open(f"/proc/sys/fs/{name}", "w") as f:
                f.write(str(value))
        return True
    except OSError:
        return False


def one_line_naming(r, name, what):
    return r.returncode == 100 and name in r.stderr and what in r.stderr and len(r.stderr.strip().splitlines()) == 1


def planted_store(p, image, dest, shared, victim, tag):
    """nobody's names at the store, its lock and its successor in a sticky folder."""
    store = p.store

    def clear():  # root's own lock and store from the runs before
        for suffix in ("", ".lock", ".next"):
            if os.path.lexists(store + suffix):
                os.unlink(store + suffix)
    clear()
    for suffix, what in (("", "symbolic link"), (".next", "symbolic link"), (".lock", "symbolic link")):
        clear()
        check(as_nobody(lambda: os.symlink(victim, store + suffix)), f"{tag}: nobody links {store + suffix}")
        r, _ = p.run(image, dest)
        check(one_line_naming(r, store + suffix, what) and content(victim) == b"root's",
              f"{tag}: a symlink at {os.path.basename(store + suffix)} is refused, the victim untouched ({r.stderr!r})")
        if content(victim) != b"root's":
            with open(victim, "wb") as f:
                f.write(b"root's")
    for suffix in ("", ".lock", ".next"):
        clear()
        check(as_nobody(lambda: os.mkfifo(store + suffix, 0o666)), f"{tag}: nobody makes a FIFO {store + suffix}")
        try:
            r, _ = p.run(image, dest)
            ok = one_line_naming(r, store + suffix, "regular file")
        except subprocess.TimeoutExpired:
            r, ok = None, False
        check(ok, f"{tag}: a FIFO at {os.path.basename(store + suffix)} is refused, no hang ({r and r.stderr!r})")
    def plant_lock():
        with open(store + ".lock", "w"):
            pass
    clear()
    check(as_nobody(plant_lock), f"{tag}: nobody makes the lock file")
    r, _ = p.run(image, dest)
    check(one_line_naming(r, store + ".lock", "owned by uid 65534"),
          f"{tag}: a lock file of nobody's is an error naming it ({r.stderr!r})")
    clear()


def shared_store(rdelta, work, ssh):
    """The kept signature in a folder other users can write, root pushing."""
    if os.geteuid() != 0:
        print("not root: the shared-store cases (nobody planting) are skipped")
        return
    rng = random.Random(11)
    shared, private = os.path.join(work, "shared"), os.path.join(work, "private")
    os.mkdir(shared, 0o1777), os.mkdir(private, 0o700)
    os.chmod(shared, 0o1777), os.chmod(work, 0o755)
    victim = os.path.join(private, "victim")
    with open(victim, "wb") as f:
        f.write(b"root's")
    image, dest = os.path.join(work, "shared.img"), "127.0.0.1:" + os.path.join(work, "shared-remote.img")
    with open(image, "wb") as f:
        f.write(rng.randbytes(MiB))
    p = pusher(rdelta, ssh, os.path.join(shared, "s.sig"))
    old = {name: open(f"/proc/sys/fs/{name}").read() for name in SYSCTLS}
    try:
        for value in (0, 1):
            if set_sysctls(value):
                planted_store(p, image, dest, shared, victim, f"protected_*={value}")
            else:
                print(f"cannot set fs.protected_*={value}: those cases are skipped")
    finally:
        for name, value in old.items():
            with open(f"/proc/sys/fs/{name}", "w") as f:
                f.write(value)

    r, s = p.run(image, dest)
    st = os.stat(p.store)
    check(r.returncode == 0 and st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o600 and kept_signature_is_images(
          rdelta, p.store, image) and not os.path.exists(p.store + ".next"),
          f"in a sticky folder the kept signature is root's own, private file ({r.stderr!r})")
    edit(image, rng, 3)
    # The last passes the header check: the delta finds it corrupt (106), and push
    # fetches the remote's then.
    for label, garbage in (("random bytes", rng.randbytes(5000)), ("a cut signature", content(p.store)[:-7]),
                           ("corrupt zstd data", b"\x28\xb5\x2f\xfd" + rng.randbytes(3000))):
        with open(p.store, "wb") as f:
            f.write(garbage)
        r, s = p.run(image, dest)
        check(r.returncode == 0 and s.get("mode") == "resync" and "dropped" in r.stderr and p.store in r.stderr,
              f"a kept signature of {label} is dropped with a warning and the remote's fetched ({r.stderr!r}, {s})")
        check(kept_signature_is_images(rdelta, p.store, image), f"{label}: the kept signature is the image's again")
        edit(image, rng, 3)
        r, s = p.run(image, dest)
        check(r.returncode == 0 and s.get("mode") == "in-place", f"{label}: the next push is in place again ({s})")

    for mode, owner, what in ((0o777, 0, "writable by other users"), (0o755, NOBODY, "uid 65534")):
        folder = os.path.join(work, f"folder-{mode:o}-{owner}")
        os.mkdir(folder)
        os.chown(folder, owner, NOGROUP if owner else 0)
        os.chmod(folder, mode)
        q = pusher(rdelta, ssh, os.path.join(folder, "s.sig"))
        r, _ = q.run(image, dest)
        check(one_line_naming(r, folder, what) and os.listdir(folder) == [],
              f"a store folder {mode:o} of uid {owner} is refused, nothing made there ({r.stderr!r})")

    check(not os.path.lexists(p.store + ".lock"), "no lock file is left in the shared folder")
    with open(p.store + ".lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        r, _ = p.run(image, dest)
    check(one_line_naming(r, p.store + ".lock", "locked"), f"a lock held by another push ({r.stderr!r})")
    # A holder that removed its lock file and has not let go yet locks nothing: the
    # next push makes a new one.
    with open(p.store + ".lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        os.unlink(p.store + ".lock")
        r, _ = p.run(image, dest)
    check(r.returncode == 0 and not os.path.lexists(p.store + ".lock"),
          f"a lock file removed by its holder does not stop the next push ({r.stderr!r})")
