"""rdiff_name_checks.py - item 9 of safety_process_test.py: under the name rdiff,
rdelta's own options are unknown options and the errors rdiff reports as text are
rdiff's own lines (compared with Debian's rdiff when present); under its own name
rdelta keeps its clearer messages."""

import os
import shutil
import subprocess

from file_ops import rm, write
from tally import check


class RdiffName:
    """Mixed into safety_process_test.Suite, which sets self.rdelta, self.rdiff (or
    None) and self.as_rdiff (a symlink named rdiff) and runs rdiff_name() in the
    work folder."""

    def rdiff_name(self):
        os.mkdir("dir")
        write("exists", b"x\n")
        write("a", os.urandom(1000))
        subprocess.run([self.rdelta, "signature", "a", "a.sig"], check=True)
        extension_options = ["-j", "-j2", "-sj", "--threads=2", "--checksum", "--verify", "--in-place",
                             "--in-place-safe", "--no-sparse", "--nocache", "--progress", "--no-progress",
                             "--max-output", "--max-output=5", "-z", "-z9", "-i", "--gzip", "--bzip2", "--zstd",
                             "--zstd=3"]
        for opt in extension_options:
            want = (101, f"rdiff: unknown option: {opt}\n\nTry `rdiff --help' for more information.\n".encode())
            self.compare_as_rdiff([opt, "signature", "a", "x"], want)
            # ...while rdelta itself knows them (it may still fail, but not as unknown).
            r = subprocess.run([self.rdelta, opt, "signature", "a", "x"], capture_output=True,
                               stdin=subprocess.DEVNULL)
            check(b"unknown option" not in r.stderr, f"rdelta {opt}: {r.stderr!r}")
            rm("x")
        io = 100
        open_read = 'librsync: ERROR: (rs_file_open) Error opening "{}" for read: {}\n'
        open_write = 'librsync: ERROR: (rs_file_open) Error opening "{}" for write: {}\n'
        exists = 'librsync: ERROR: (rs_file_open) File exists "{}", aborting!\n'
        read_dir = ("librsync: ERROR: (rs_infilebuf_fill) error filling buf from file: Is a directory\n"
                    "rdiff: Failed, IO error.\n")
        cases = [
            (["signature", "nofile", "s"], open_read.format("nofile", "No such file or directory")),
            (["signature", "", "s"], open_read.format("", "No such file or directory")),
            (["signature", "a", "exists"], exists.format("exists")),
            (["signature", "a", "dir"], exists.format("dir")),
            (["-f", "signature", "a", "dir"], open_write.format("dir", "Is a directory")),
            (["signature", "a", "nodir/x"], open_write.format("nodir/x", "No such file or directory")),
            (["signature", "a", ""], open_write.format("", "No such file or directory")),
            (["signature", "dir", "s"], read_dir),
            (["delta", "nofile", "a", "d"], open_read.format("nofile", "No such file or directory")),
            (["delta", "a.sig", "nofile", "d"], open_read.format("nofile", "No such file or directory")),
            (["delta", "dir", "a", "d"], read_dir),
            (["delta", "a.sig", "dir", "d"], read_dir),
            (["delta", "a.sig", "a", "exists"], exists.format("exists")),
            (["patch", "nofile", "a", "o"], open_read.format("nofile", "No such file or directory")),
            (["patch", "a", "nofile", "o"], open_read.format("nofile", "No such file or directory")),
            (["patch", "a", "dir", "o"], read_dir),
            (["patch", "a", "a.sig", "exists"], exists.format("exists")),
            # rdiff opens every file before it reads one: a folder fails after them.
            (["signature", "dir", "exists"], exists.format("exists")),
            (["delta", "dir", "nofile", "d"], open_read.format("nofile", "No such file or directory")),
            (["delta", "a.sig", "dir", "exists"], exists.format("exists")),
            (["patch", "dir", "a", "exists"], exists.format("exists")),
        ]
        for args, text in cases:
            self.compare_as_rdiff(args, (io, text.encode()))
        self.compare_as_rdiff(["signature", "dir", "s", "extra"],
                              (101, b"rdiff: Too many arguments.\n\nTry `rdiff --help' for more information.\n"))
        # The last line of other failures is rdiff's.
        self.compare_as_rdiff(["delta", "exists", "a", "d"], (103, None), b"rdiff: Failed, unexpected end of input.\n")
        # As another user: an unreadable input, an output in a folder without write permission.
        if os.geteuid() == 0 and shutil.which("setpriv"):
            os.mkdir("shared")
            os.chmod("shared", 0o777)
            os.chdir("shared")
            write("a", os.urandom(1000))
            write("secret", b"x")
            os.chmod("secret", 0)
            os.mkdir("ro")
            os.chmod("ro", 0o555)
            nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            for args, text in ([["signature", "secret", "s"], open_read.format("secret", "Permission denied")],
                               [["delta", "secret", "a", "d"], open_read.format("secret", "Permission denied")],
                               [["signature", "a", "ro/x"], open_write.format("ro/x", "Permission denied")]):
                self.compare_as_rdiff(args, (io, text.encode()), prefix=nobody)
            os.chdir("..")
            shutil.rmtree("shared")
        # Under its own name rdelta keeps its own, clearer, messages.
        r = subprocess.run([self.rdelta, "signature", "nofile", "s"], capture_output=True)
        check(r.returncode == 100 and r.stderr.startswith(b"rdelta: nofile: "), f"rdelta's own message: {r.stderr!r}")
        r = subprocess.run([self.rdelta, "-j", "2", "signature", "a", "s"], capture_output=True)
        check(r.returncode == 0, f"rdelta -j 2: {r.returncode}")
        rm("s", "a.sig")
        os.rmdir("dir")

    def compare_as_rdiff(self, args, want, tail=None, prefix=()):
        """rdelta named rdiff gives `want` (status, stderr; stderr None = not checked),
        its stderr ends with `tail`, and Debian's rdiff agrees when present."""
        runs = [("rdelta as rdiff", self.as_rdiff)] + ([("rdiff", self.rdiff)] if self.rdiff else [])
        results = []
        for label, prog in runs:
            r = subprocess.run(list(prefix) + [prog] + args, capture_output=True, stdin=subprocess.DEVNULL)
            results.append(r)
            for out in ("s", "x", "d", "o"):
                rm(out)
            what = f"{label} {' '.join(args)}"
            check(r.returncode == want[0], f"{what}: status {r.returncode}, want {want[0]}: {r.stderr!r}")
            if want[1] is not None:
                check(r.stderr == want[1], f"{what}: stderr {r.stderr!r}, want {want[1]!r}")
            if tail is not None:
                check(r.stderr.endswith(tail), f"{what}: stderr {r.stderr!r} does not end with {tail!r}")
        if len(results) == 2 and want[1] is not None:
            check(results[0].stderr == results[1].stderr, f"{' '.join(args)}: stderr differs from rdiff's")
