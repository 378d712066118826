#!/usr/bin/env python3
"""Outputs in shared sticky folders (man page, SAFETY): root runs rdelta, user
nobody plants names. rdelta applies the kernel's rules itself, whatever
fs.protected_symlinks, fs.protected_regular and fs.protected_fifos say: another
user's symlink is not followed, another user's file or FIFO is not written (status
100, the victim untouched, no hang), a file there that is not the caller's is
replaced by one of the caller's, and a file with other links is renamed over, not
rewritten. The caller's and the folder owner's symlinks are still followed, and a
folder that is not sticky keeps the usual rules (symlinks followed, owner and mode
kept). Every case runs with the three sysctls at 0 and at 1 (restored after).
Usage: sticky_outputs_test.py --rdelta PATH. Needs root and user nobody; prints
'N passed, M failed' (skips, status 77, when nothing could run)."""
import argparse
import os
import shutil
import stat
import subprocess
import sys
import tempfile

import tally
from as_user import as_nobody
from tally import check, summary

NOBODY, NOGROUP = 65534, 65534
SYSCTLS = ("protected_symlinks", "protected_regular", "protected_fifos")
skipped = []


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data, mode=0o644):
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)




def sysctl_get(name):
    with open(f"/proc/sys/fs/{name}") as f:
        return int(f.read())


def sysctl_set(name, value):
    try:
        with open(f"/proc/sys/fs/{name}", "w") as f:
            f.write(str(value))
        return sysctl_get(name) == value
    except OSError:
        return False


class Tool:
    def __init__(self, rdelta, inputs):
        self.rdelta, self.inputs = rdelta, inputs

    def run(self, *args):
        try:
            return subprocess.run([self.rdelta, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  timeout=15)
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess(args, -1, "", "timed out (hung on a FIFO?)")

    def commands(self):
        """Each command with its output last: (label, args before the output)."""
        i = self.inputs
        return (("signature", ["signature", i["old"]]), ("delta", ["delta", i["sig"], i["new"]]),
                ("patch", ["patch", i["old"], i["delta"]]),
                ("delta --new-signature", ["delta", "--new-signature"]))

    def write_to(self, label, args, out, force):
        f = ["-f"] if force else []
        if label == "delta --new-signature":  # the signature is the output checked; the delta goes to a pipe
            return self.run(*args[:1], *f, args[1], out, self.inputs["sig"], self.inputs["new"], "-")
        return self.run(*args[:1], *f, *args[1:], out)


def refused(r, name, what):
    return r.returncode == 100 and name in r.stderr and "Permission denied" in r.stderr and what in r.stderr \
        and "sticky" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def planted_symlinks(tool, work, tag):
    """nobody's symlink in a shared sticky folder leads nowhere, forced or not."""
    shared, private = os.path.join(work, "shared"), os.path.join(work, "private")
    for label, args in tool.commands():
        for force in (False, True):
            victim = os.path.join(private, "victim")
            if force:
                write(victim, b"root's secret", 0o600)
            link = os.path.join(shared, "o.out")
            check(as_nobody(lambda: os.symlink(victim, link)), f"{tag}: nobody plants {link}")
            r = tool.write_to(label, args, link, force)
            check(refused(r, link, "symbolic link"),
                  f"{tag}: {label}{' -f' if force else ''} through nobody's symlink refused ({r.returncode}, {r.stderr!r})")
            if force:
                check(read(victim) == b"root's secret" and os.stat(victim).st_uid == 0,
                      f"{tag}: {label} -f: root's file is untouched")
                os.unlink(victim)
            else:
                check(not os.path.lexists(victim), f"{tag}: {label}: no root file is created through the link")
            check(os.path.islink(link), f"{tag}: {label}: the link stays")
            os.unlink(link)


def planted_files(tool, work, tag):
    """-f over nobody's world-writable file or FIFO in a shared sticky folder."""
    for folder_name in ("shared", "group-shared"):
        folder = os.path.join(work, folder_name)
        for label, args in tool.commands():
            target = os.path.join(folder, "f.out")
            check(as_nobody(lambda: write(target, b"nobody's", 0o666)), f"{tag}: nobody plants {target}")
            r = tool.write_to(label, args, target, True)
            st = os.stat(target)
            check(refused(r, target, "regular file"),
                  f"{tag}: {folder_name}: {label} -f over nobody's 0666 file refused ({r.returncode}, {r.stderr!r})")
            check(read(target) == b"nobody's" and st.st_uid == NOBODY and stat.S_IMODE(st.st_mode) == 0o666,
                  f"{tag}: {folder_name}: {label}: nobody's file untouched")
            os.unlink(target)
            fifo = os.path.join(folder, "p.out")
            check(as_nobody(lambda: os.mkfifo(fifo, 0o666)), f"{tag}: nobody plants the FIFO {fifo}")
            r = tool.write_to(label, args, fifo, True)
            check(refused(r, fifo, "FIFO"),
                  f"{tag}: {folder_name}: {label} -f into nobody's FIFO refused, no hang ({r.returncode}, {r.stderr!r})")
            os.unlink(fifo)


def trusted_links(tool, work, tag):
    """Root's own symlink, and the folder owner's, are followed in a sticky folder."""
    shared, theirs, private = (os.path.join(work, n) for n in ("shared", "nobody-shared", "private"))
    for label, args in tool.commands():
        target = os.path.join(private, "mine.out")
        link = os.path.join(shared, "mine")
        os.symlink(target, link)
        r = tool.write_to(label, args, link, False)
        check(r.returncode == 0 and os.path.isfile(target) and os.path.islink(link),
              f"{tag}: {label}: root's own symlink in a sticky folder is followed ({r.returncode}, {r.stderr!r})")
        os.unlink(link), os.unlink(target)
        link = os.path.join(theirs, "owners")
        check(as_nobody(lambda: os.symlink(target, link)), f"{tag}: nobody links in its own sticky folder")
        r = tool.write_to(label, args, link, False)
        check(r.returncode == 0 and os.path.isfile(target),
              f"{tag}: {label}: the folder owner's symlink is followed ({r.returncode}, {r.stderr!r})")
        os.unlink(link), os.unlink(target)


def replaced_files(tool, work, tag):
    """What -f leaves: the folder owner's file becomes root's; root's keeps its
    mode; a file with another link is renamed over, the other link left as it was."""
    theirs, shared, private = (os.path.join(work, n) for n in ("nobody-shared", "shared", "private"))
    for label, args in tool.commands():
        owners = os.path.join(theirs, "r.out")
        check(as_nobody(lambda: write(owners, b"nobody's", 0o666)), f"{tag}: nobody makes a file in its folder")
        r = tool.write_to(label, args, owners, True)
        st = os.stat(owners)
        check(r.returncode == 0 and read(owners) != b"nobody's" and st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o644,
              f"{tag}: {label} -f over the folder owner's file: root's file, mode from the umask "
              f"({r.returncode}, uid {st.st_uid}, {oct(st.st_mode)}, {r.stderr!r})")
        os.unlink(owners)
        mine, other = os.path.join(shared, "m.out"), os.path.join(private, "m.link")
        write(mine, b"root's", 0o600)
        os.link(mine, other)
        r = tool.write_to(label, args, mine, True)
        st = os.stat(mine)
        check(r.returncode == 0 and read(mine) != b"root's" and stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == 0,
              f"{tag}: {label} -f over root's own file there keeps its mode ({r.returncode}, {oct(st.st_mode)})")
        check(read(other) == b"root's" and st.st_nlink == 1,
              f"{tag}: {label}: its other link is not written through (renamed over)")
        os.unlink(mine), os.unlink(other)


def plain_folder(tool, work, tag):
    """A folder that is not sticky keeps the usual rules, whoever owns the names."""
    home, private = os.path.join(work, "nobody-home"), os.path.join(work, "private")
    for label, args in tool.commands():
        target, link = os.path.join(private, "plain.out"), os.path.join(home, "link")
        check(as_nobody(lambda: os.symlink(target, link)), f"{tag}: nobody links in its own folder")
        r = tool.write_to(label, args, link, False)
        check(r.returncode == 0 and os.path.isfile(target),
              f"{tag}: {label}: a symlink in a folder that is not sticky is followed ({r.returncode}, {r.stderr!r})")
        os.unlink(link), os.unlink(target)
        file = os.path.join(home, "kept.out")
        check(as_nobody(lambda: write(file, b"nobody's", 0o664)), f"{tag}: nobody makes a file in its folder")
        r = tool.write_to(label, args, file, True)
        st = os.stat(file)
        check(r.returncode == 0 and read(file) != b"nobody's" and st.st_uid == NOBODY and stat.S_IMODE(st.st_mode) == 0o664,
              f"{tag}: {label} -f there keeps the owner and mode ({r.returncode}, uid {st.st_uid}, {oct(st.st_mode)})")
        os.unlink(file)


def folders(work):
    """shared: root's, 1777; group-shared: root's, group nogroup, 1770 (the case
    protected_regular=2 covers); nobody-shared: nobody's, 1777; nobody-home:
    nobody's, 0755; private: root's, 0700."""
    for name, owner, group, mode in (("shared", 0, 0, 0o1777), ("group-shared", 0, NOGROUP, 0o1770),
                                     ("nobody-shared", NOBODY, NOGROUP, 0o1777), ("nobody-home", NOBODY, NOGROUP, 0o755),
                                     ("private", 0, 0, 0o700)):
        path = os.path.join(work, name)
        os.mkdir(path)
        os.chown(path, owner, group)
        os.chmod(path, mode)


def inputs(rdelta, work):
    old, new = os.urandom(150_000), None
    new = old[:50_000] + os.urandom(10_000) + old[60_000:]
    paths = {k: os.path.join(work, "in", k) for k in ("old", "new", "sig", "delta")}
    os.mkdir(os.path.join(work, "in"))
    write(paths["old"], old)
    write(paths["new"], new)
    subprocess.run([rdelta, "signature", paths["old"], paths["sig"]], check=True)
    subprocess.run([rdelta, "delta", paths["sig"], paths["new"], paths["delta"]], check=True)
    return paths


def run_all(tool, work, value):
    tag = f"protected_*={value}"
    planted_symlinks(tool, work, tag)
    planted_files(tool, work, tag)
    trusted_links(tool, work, tag)
    replaced_files(tool, work, tag)
    plain_folder(tool, work, tag)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    rdelta = os.path.abspath(ap.parse_args().rdelta)
    if os.geteuid() != 0:
        print("not root: every case needs root and user nobody: skipped")
        return 77
    os.umask(0o022)
    work = tempfile.mkdtemp(prefix="rdelta-sticky-")
    os.chmod(work, 0o755)
    old = {name: sysctl_get(name) for name in SYSCTLS}
    try:
        folders(work)
        tool = Tool(rdelta, inputs(rdelta, work))
        for value in (0, 1):
            if all(sysctl_set(name, value) for name in SYSCTLS):
                run_all(tool, work, value)
            else:
                skipped.append(f"fs.protected_*={value} (cannot set the sysctls here)")
    finally:
        for name, value in old.items():
            sysctl_set(name, value)
        shutil.rmtree(work)
    for what in skipped:
        print("skipped:", what)
    if tally.passed + tally.failed == 0:
        print("no case could run")
        return 77
    return summary()


if __name__ == "__main__":
    sys.exit(main())
