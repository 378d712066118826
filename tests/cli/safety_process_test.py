#!/usr/bin/env python3
"""Process-level safety (issue 9, items 5-10): how rdelta treats the process it runs
in and the streams it is given.

  5. `-` that is a regular file is read from its current offset, and left at the end
     of what was consumed (signature, delta's new file, delta's signature, patch's
     delta); a patch basis on stdin is read at absolute positions, as rdiff does.
  6. Inherited SIG_IGN stays (nohup, ignored SIGPIPE gives 100); the other
     terminating signals remove the temporary output and kill with the same signal.
  7. Closed descriptors 0-2 are reopened on /dev/null before anything is opened; `-`
     on a closed stdin or stdout fails with 100 as in rdiff.
  8. Out of memory under `ulimit -v`: 102 with a message, never an abort, and no
     temporary file left (skipped under AddressSanitizer, which needs the address space).
  9. Under the name rdiff: rdelta's own options are unknown options, and the errors
     rdiff reports as text are rdiff's own lines (rdiff_name_checks.py).
 10. zstd streams made by other tools: pzstd's skippable frames, several frames.
 11. An input written while it is read (a signature's file, a patch's basis or
     delta, a delta's signature) fails
     with 100 and no output: what was read mixes old and new data. rdiff publishes
     such a signature, or patch output, and exits 0. The process is stopped once it
     has the file open, the file written, the process continued (written_while_read.py).

Usage: safety_process_test.py --rdelta PATH [--rdiff PATH] [--capi librsync.so.2]. Without rdiff (or when it
is missing) the comparisons with it are skipped, not the checks of rdelta's own
behaviour. Prints 'N passed, M failed' and exits non-zero on failure."""
import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from file_ops import read, rm, write
from tally import check, summary
from rdiff_name_checks import RdiffName
from written_while_read import WrittenWhileRead


def run_stdin_at(cmd, path, offset, **kw):
    """Run cmd with stdin = `path` opened and positioned at `offset`; returns the
    completed process and the descriptor's offset afterwards (shared with the child)."""
    with open(path, "rb") as f:
        os.lseek(f.fileno(), offset, os.SEEK_SET)
        r = subprocess.run(cmd, stdin=f, capture_output=True, **kw)
        return r, os.lseek(f.fileno(), 0, os.SEEK_CUR)


# rs_loadsig_file, rs_build_hash_table, rs_delta_file and rs_sig_file of a
# librsync.so.2 under an address-space limit; prints their results (-1: not run).
CAPI_PROGRAM = r"""
import ctypes, resource, sys
lib, libc = ctypes.CDLL(sys.argv[1]), ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
vp = ctypes.c_void_p
lib.rs_loadsig_file.argtypes = [vp, ctypes.POINTER(vp), vp]
lib.rs_build_hash_table.argtypes = [vp]
lib.rs_delta_file.argtypes = [vp, vp, vp, vp]
lib.rs_sig_file.argtypes = [vp, vp, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_int, vp]
sig_file, new_file = libc.fopen(sys.argv[2].encode(), b"rb"), libc.fopen(sys.argv[3].encode(), b"rb")
basis_file, null = libc.fopen(sys.argv[3].encode(), b"rb"), libc.fopen(b"/dev/null", b"wb")
kib = int(sys.argv[4])
resource.setrlimit(resource.RLIMIT_AS, (kib << 10, kib << 10))
sig = vp()
loaded = lib.rs_loadsig_file(sig_file, ctypes.byref(sig), None)
indexed = lib.rs_build_hash_table(sig) if loaded == 0 else -1
delta = lib.rs_delta_file(sig, new_file, null, None) if indexed == 0 else -1
print(loaded, indexed, delta, lib.rs_sig_file(basis_file, null, 0, 0, 0, None))
"""


class Suite(RdiffName, WrittenWhileRead):
    def __init__(self, rdelta, rdiff, work, capi=None):
        self.rdelta, self.rdiff, self.work, self.capi = rdelta, rdiff, work, capi
        self.as_rdiff = os.path.join(work, "bin", "rdiff")  # rdelta under the name rdiff
        os.makedirs(os.path.dirname(self.as_rdiff))
        os.symlink(rdelta, self.as_rdiff)

    def files(self):
        return sorted(f for f in os.listdir(".") if f != "bin")

    # ----- 5: standard input from its offset ----------------------------------------

    def stdin_offset(self):
        R = self.rdelta
        # A basis whose whole size and remaining size give different default block
        # lengths (rdiff picks them from the whole file), and a new file sharing data.
        basis = os.urandom(1 << 20)
        new = basis[:300000] + os.urandom(50000) + basis[400000:]
        write("basis", basis)
        write("new", new)
        skip = 900000
        write("basis.tail", basis[skip:])
        r, pos = run_stdin_at([R, "signature", "-", "tail.sig"], "basis", skip)
        check(r.returncode == 0 and pos == len(basis), f"signature -: exit {r.returncode}, offset after {pos}")
        # The same bytes as a signature of the tail with the block length of the whole file.
        subprocess.run([R, "signature", "basis", "whole.sig"], check=True)
        block = int.from_bytes(read("whole.sig")[4:8], "big")
        subprocess.run([R, "-b", str(block), "signature", "basis.tail", "ref.sig"], check=True)
        check(read("tail.sig") == read("ref.sig"), "signature - signs only the rest of standard input")
        if self.rdiff:
            r, pos = run_stdin_at([self.rdiff, "signature", "-", "rdiff.sig"], "basis", skip)
            check(read("tail.sig") == read("rdiff.sig"), "signature - at an offset: rdiff's bytes")
            check(pos == len(basis), f"rdiff leaves the offset at {pos}")
        rm("tail.sig", "ref.sig", "rdiff.sig")

        # delta SIG -: the new file on stdin (random access through file_basis).
        subprocess.run([R, "-f", "signature", "basis", "basis.sig"], check=True)
        write("new.tail", new[1000:])
        r, pos = run_stdin_at([R, "delta", "--no-checksum", "basis.sig", "-", "d.stdin"], "new", 1000)
        subprocess.run([R, "delta", "--no-checksum", "basis.sig", "new.tail", "d.ref"], check=True)
        check(r.returncode == 0 and read("d.stdin") == read("d.ref"), f"delta SIG -: exit {r.returncode}, the rest only")
        check(pos == len(new), f"delta SIG -: offset after {pos}, not {len(new)}")
        if self.rdiff:
            run_stdin_at([self.rdiff, "delta", "basis.sig", "-", "d.rdiff"], "new", 1000)
            check(read("d.stdin") == read("d.rdiff"), "delta SIG - at an offset: rdiff's bytes")
            rm("d.rdiff")

        # delta - NEW: the signature on stdin, after 7 bytes of something else.
        write("junk+sig", b"garbage" + read("basis.sig"))
        r, _ = run_stdin_at([R, "delta", "-", "new", "d2"], "junk+sig", 7)
        subprocess.run([R, "delta", "basis.sig", "new", "d.full"], check=True)
        check(r.returncode == 0 and read("d2") == read("d.full"), f"delta - NEW at an offset: exit {r.returncode}")

        # patch BASIS -: the delta on stdin, after 7 bytes.
        write("junk+delta", b"garbage" + read("d.full"))
        r, pos = run_stdin_at([R, "patch", "basis", "-", "p1"], "junk+delta", 7)
        check(r.returncode == 0 and read("p1") == new, f"patch BASIS - at an offset: exit {r.returncode}")
        check(pos == 7 + len(read("d.full")), f"patch BASIS -: offset after {pos}")
        # patch - DELTA: rdiff reads the basis at absolute positions (fseek), whatever
        # was read from its stdin before; rdelta does the same.
        r, _ = run_stdin_at([R, "patch", "-", "d.full", "p2"], "basis", 1000)
        check(r.returncode == 0 and read("p2") == new, f"patch - DELTA: exit {r.returncode}, basis at absolute positions")
        if self.rdiff:
            run_stdin_at([self.rdiff, "patch", "-", "d.full", "p3"], "basis", 1000)
            check(read("p3") == read("p2"), "patch - DELTA at an offset: rdiff's bytes")
            rm("p3")
        rm("d.stdin", "d.ref", "d2", "p1", "p2", "junk+sig", "junk+delta", "basis.tail", "new.tail", "whole.sig")

    # ----- 6: signals ------------------------------------------------------------------

    def wait_for_temp(self, before, p, timeout=10.0):
        """Wait until the running command has created its temporary output: an
        unnamed file (O_TMPFILE, "#N (deleted)" in /proc) or a named one here."""
        end = time.time() + timeout
        while time.time() < end and p.poll() is None:
            if set(os.listdir(".")) - before:
                return True
            try:
                fds = os.listdir(f"/proc/{p.pid}/fd")
                links = [os.readlink(f"/proc/{p.pid}/fd/{fd}") for fd in fds]
            except OSError:
                links = []
            if any(l.startswith(os.getcwd() + "/#") and l.endswith(" (deleted)") for l in links):
                return True
            time.sleep(0.01)
        return False

    def signals(self):
        R = self.rdelta
        basis = read("basis")
        # Inherited SIG_IGN stays: SIGHUP under nohup does not stop the run.
        before = set(os.listdir("."))
        p = subprocess.Popen([R, "signature", "-", "hup.sig"], stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        p.stdin.write(basis[:100000])
        p.stdin.flush()
        self.wait_for_temp(before, p)
        p.send_signal(signal.SIGHUP)
        time.sleep(0.1)
        try:
            p.stdin.write(basis[100000:])
            p.stdin.close()
        except BrokenPipeError:  # it died of the signal
            pass
        p.wait(timeout=30)
        check(p.returncode == 0 and os.path.exists("hup.sig"), f"SIGHUP ignored as nohup asks: status {p.returncode}")
        rm("hup.sig")

        # SIGPIPE ignored: writing to a closed pipe is an I/O error (100), as in rdiff.
        write("big", os.urandom(8 << 20))
        programs = [("rdelta", R)] + ([("rdiff", self.rdiff)] if self.rdiff else [])
        for label, prog in programs:
            p = subprocess.Popen([prog, "signature", "big", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))
            p.stdout.close()
            err = p.stderr.read()
            p.wait(timeout=60)
            check(p.returncode == 100, f"{label}: SIGPIPE ignored, closed pipe: status {p.returncode} ({err[-200:]!r})")
        rm("big")

        # Every terminating signal removes the temporary output and kills with itself.
        sigs = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGALRM,
                signal.SIGUSR1, signal.SIGUSR2, signal.SIGQUIT]
        for sig in sigs:
            before = set(os.listdir("."))
            # The signal's default action, whatever this test inherited (nohup ignores SIGHUP).
            p = subprocess.Popen([R, "signature", "-", "sig.out"], stdin=subprocess.PIPE, stderr=subprocess.PIPE,
                                 preexec_fn=lambda sig=sig: signal.signal(sig, signal.SIG_DFL))
            p.stdin.write(basis[:100000])
            p.stdin.flush()
            started = self.wait_for_temp(before, p)
            p.send_signal(sig)
            try:
                p.stdin.close()
            except BrokenPipeError:
                pass
            p.wait(timeout=30)
            left = sorted(set(os.listdir(".")) - before)
            check(started and p.returncode == -sig and not left,
                  f"{sig.name}: status {p.returncode} (want {-sig}), left {left}")
        # SIGKILL cannot be caught: the output being written has no name, so nothing
        # is left behind, and a file being replaced (-f) is untouched.
        write("kept.sig", b"the old one")
        for args in (["sig.out"], ["-f", "kept.sig"]):
            before = set(os.listdir("."))
            p = subprocess.Popen([R, "signature", "-", *args], stdin=subprocess.PIPE, stderr=subprocess.PIPE)
            p.stdin.write(basis[:100000])
            p.stdin.flush()
            started = self.wait_for_temp(before, p)
            p.kill()
            p.wait(timeout=30)
            p.stdin.close()
            left = sorted(set(os.listdir(".")) - before)
            check(started and p.returncode == -signal.SIGKILL and not left and read("kept.sig") == b"the old one",
                  f"SIGKILL while writing {args}: status {p.returncode}, left {left}")
        rm("kept.sig")
        # SIGXFSZ as the kernel sends it: an output over the file-size limit (ulimit -f).
        subprocess.run([R, "-f", "signature", "basis", "basis.sig"], check=True)
        subprocess.run([R, "-f", "delta", "basis.sig", "new", "new.delta"], check=True)
        before = set(os.listdir("."))
        r = subprocess.run([R, "patch", "basis", "new.delta", "fsize.out"], capture_output=True,
                           preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (100 << 10, 100 << 10)))
        left = sorted(set(os.listdir(".")) - before)
        check(r.returncode == -signal.SIGXFSZ and not left, f"ulimit -f: status {r.returncode}, left {left}")
        rm(*left)
        # A shell sees 128+N.
        r = subprocess.run(["sh", "-c", f'sleep 5 2>/dev/null | "{R}" signature - s.out & p=$!; sleep 0.3; '
                            'kill -USR1 $p; wait $p; echo $?'], capture_output=True, timeout=30)
        check(r.stdout.strip() == str(128 + signal.SIGUSR1).encode(), f"shell status after SIGUSR1: {r.stdout!r}")
        rm("s.out")

    # ----- 7: closed standard descriptors ----------------------------------------------

    def closed_fds(self):
        R = self.rdelta
        subprocess.run([R, "signature", "basis", "ref.sig"], check=True)
        # stderr closed, progress forced: the progress line must not land in the output.
        for closing in ("2>&-", "0<&- 2>&-", "0<&- 1>&- 2>&-", "1>&-"):
            rm("out.sig")
            r = subprocess.run(["sh", "-c", f'exec {closing}; exec "{R}" --progress signature basis out.sig'],
                               capture_output=True)
            check(r.returncode == 0 and os.path.exists("out.sig") and read("out.sig") == read("ref.sig"),
                  f"signature with {closing}: exit {r.returncode}, output equal to the reference")
        # Messages written while the output is open: patch -s prints its statistics
        # before the output is published, and a slow input lets the progress line show.
        subprocess.run([R, "-f", "signature", "basis", "basis.sig"], check=True)
        subprocess.run([R, "-f", "delta", "basis.sig", "new", "new.delta"], check=True)
        r = subprocess.run([R, "-s", "patch", "basis", "new.delta", "out.bin"], preexec_fn=lambda: os.close(2))
        check(r.returncode == 0 and read("out.bin") == read("new"), f"patch -s with fd 2 closed: exit {r.returncode}, "
              f"output {'equal' if os.path.exists('out.bin') and read('out.bin') == read('new') else 'damaged'}")
        rm("out.bin")
        basis = read("basis")
        rm("out.sig")
        p = subprocess.Popen([R, "--progress", "signature", "-", "out.sig"], stdin=subprocess.PIPE,
                             preexec_fn=lambda: os.close(2))
        for k in range(8):
            p.stdin.write(basis[k * len(basis) // 8:(k + 1) * len(basis) // 8])
            p.stdin.flush()
            time.sleep(0.15)
        p.stdin.close()
        p.wait(timeout=30)
        piped = subprocess.run([R, "signature"], input=basis, capture_output=True, check=True).stdout
        check(p.returncode == 0 and read("out.sig") == piped,
              f"--progress with fd 2 closed: exit {p.returncode}, the progress line must not be in the output")
        rm("out.sig")
        # A failing command with fd 2 closed creates nothing and returns its status.
        r = subprocess.run(["sh", "-c", f'exec 2>&-; exec "{R}" patch basis nosuch out.bin'], capture_output=True)
        check(r.returncode == 100 and not os.path.exists("out.bin"), f"error with fd 2 closed: {r.returncode}")
        rm("out.sig", "ref.sig")
        self.closed_stdio_named()

    def closed_stdio_named(self):
        """`-` (or an argument left out) on a closed stdin or stdout fails with 100 and
        creates nothing: never a signature of an empty input, never an output thrown away
        with status 0. rdiff fails with 100 on a closed stdout; with stdin closed its
        output file takes descriptor 0, so it reads its own empty output (delta: status 0)."""
        R = self.rdelta
        cases = [("0<&-", ["signature", "-", "out.x"]), ("0<&-", ["signature"]),
                 ("0<&-", ["delta", "basis.sig", "-", "out.x"]), ("0<&-", ["patch", "basis", "-", "out.x"]),
                 ("1>&-", ["signature", "basis", "-"]), ("1>&-", ["signature", "basis"]),
                 ("1>&-", ["delta", "basis.sig", "new", "-"]), ("1>&-", ["patch", "basis", "new.delta"])]
        for closing, words in cases:
            for tool in (R, self.as_rdiff):
                rm("out.x")
                cmd = " ".join(f'"{w}"' for w in [tool, *words])
                r = subprocess.run(["sh", "-c", f"exec {closing}; exec {cmd}"], capture_output=True)
                check(r.returncode == 100 and not os.path.exists("out.x"),
                      f"{os.path.basename(tool)} {' '.join(words)} with {closing}: exit {r.returncode} "
                      f"(100 expected), output {'created' if os.path.exists('out.x') else 'not created'}")
        rm("out.x")

    # ----- 8: out of memory ------------------------------------------------------------

    def out_of_memory(self):
        R = self.rdelta
        # AddressSanitizer reserves terabytes of address space: under any ulimit -v
        # it cannot start. Probe with a limit every normal build fits in.
        def four_gib():
            resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        probe = subprocess.run([R, "--version"], capture_output=True, preexec_fn=four_gib)
        if probe.returncode != 0 or os.environ.get("RDELTA_TEST_NO_ULIMIT"):
            print("note: sanitizer build (cannot run under ulimit -v); the out-of-memory cases were not run")
            return
        write("m", os.urandom(20 << 20))
        subprocess.run([R, "-f", "signature", "basis", "basis.sig"], check=True)
        subprocess.run([R, "--zstd", "signature", "m", "m.sig.zst"], check=True)
        subprocess.run([R, "delta", "basis.sig", "m", "m.delta"], check=True)
        keep = set(os.listdir("."))
        commands = [["signature", "m", "o"], ["-j", "16", "signature", "m", "o"], ["delta", "basis.sig", "m", "o"],
                    ["-j", "16", "delta", "m.sig.zst", "basis", "o"], ["patch", "basis", "m.delta", "o"],
                    ["--zstd=19", "signature", "m", "o"], ["-z", "delta", "basis.sig", "m", "o"]]
        statuses = set()
        for limit_kib in (12000, 16000, 20000, 30000, 60000):
            def limit(kib=limit_kib):
                resource.setrlimit(resource.RLIMIT_AS, (kib << 10, kib << 10))
            for args in commands:
                for prog in (R, self.as_rdiff) if "-j" not in args and "-z" not in args[0] else (R,):
                    rm("o")
                    r = subprocess.run([prog] + args, capture_output=True, preexec_fn=limit)
                    if r.returncode == 127 and b"error while loading shared libraries" in r.stderr:
                        continue  # the limit is below what the program needs to start
                    statuses.add(r.returncode)
                    left = sorted(set(os.listdir(".")) - keep - {"o"})
                    what = f"ulimit -v {limit_kib} {os.path.basename(prog)} {' '.join(args)}"
                    check(r.returncode in (0, 102), f"{what}: status {r.returncode}, {r.stderr[-300:]!r}")
                    check(not left, f"{what}: left {left}")
                    rm(*left)  # each case on its own
                    if r.returncode == 102:
                        check(not os.path.exists("o"), f"{what}: failed but wrote its output")
                        want = b"rdiff: Failed, out of memory.\n" if prog == self.as_rdiff else b"out of memory"
                        check(r.stderr.endswith(want) if prog == self.as_rdiff else want in r.stderr,
                              f"{what}: message {r.stderr[-200:]!r}")
        check(102 in statuses, f"no ulimit -v case ran out of memory (statuses {sorted(statuses)})")
        rm("o", "m", "m.sig.zst", "m.delta")
        if self.capi:
            self.capi_out_of_memory()

    def capi_out_of_memory(self):
        """librsync.so.2's whole-file calls under ulimit -v: RS_MEM_ERROR, never an abort
        (an exception through the C caller's frames would be std::terminate)."""
        R = self.rdelta
        write("cm", os.urandom(50 << 20))
        subprocess.run([R, "-f", "-b", "64", "signature", "cm", "cm.sig"], check=True)  # 27 MiB of records
        results = set()
        for limit_kib in (60000, 70000, 80000, 100000, 150000):
            r = subprocess.run([sys.executable, "-c", CAPI_PROGRAM, self.capi, "cm.sig", "cm", str(limit_kib)],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"C API under ulimit -v {limit_kib}: status {r.returncode} {r.stderr[-300:]!r}")
            codes = r.stdout.split()
            check(len(codes) == 4 and all(c in ("0", "102", "-1") for c in codes),
                  f"C API under ulimit -v {limit_kib}: results {r.stdout!r}")
            results.update(codes)
        check("102" in results, f"no C API call ran out of memory: {sorted(results)}")
        rm("cm", "cm.sig")

    # ----- 10: zstd streams from other tools -------------------------------------------

    def zstd_streams(self):
        R = self.rdelta
        subprocess.run([R, "-f", "signature", "basis", "basis.sig"], check=True)
        subprocess.run([R, "-f", "delta", "basis.sig", "new", "new.delta"], check=True)
        delta = read("new.delta")
        # A skippable frame (any of the 16 magics) before rdelta's own zstd output.
        subprocess.run([R, "--zstd", "delta", "basis.sig", "new", "new.delta.zst"], check=True)
        for low in (0, 7, 15):
            write("skip.zst", bytes([0x50 + low, 0x2A, 0x4D, 0x18, 4, 0, 0, 0]) + b"abcd" + read("new.delta.zst"))
            r = subprocess.run([R, "patch", "basis", "skip.zst", "out"], capture_output=True)
            check(r.returncode == 0 and read("out") == read("new"), f"skippable frame 0x184D2A5{low:X} first: "
                  f"exit {r.returncode} {r.stderr!r}")
            rm("out")
        # Truncated inside the leading skippable frame, and inside the data after it.
        for cut in (6, 10, 40):
            write("cut.zst", read("skip.zst")[:cut])
            r = subprocess.run([R, "patch", "basis", "cut.zst", "out"], capture_output=True)
            check(r.returncode == 103 and not os.path.exists("out"), f"cut at {cut}: exit {r.returncode}")
        if shutil.which("pzstd"):
            for name, data in (("sig", read("basis.sig")), ("delta", delta)):
                write(f"{name}.raw", data)
                subprocess.run(["pzstd", "-q", "-f", "-p", "2", f"{name}.raw", "-o", f"{name}.pz"], check=True)
                check(read(f"{name}.pz")[:4] == bytes.fromhex("502a4d18"), "pzstd output starts with a skippable frame")
            r = subprocess.run([R, "delta", "sig.pz", "new", "out"], capture_output=True)
            check(r.returncode == 0 and read("out") == delta, f"delta with a pzstd signature: {r.returncode} {r.stderr!r}")
            rm("out")
            r = subprocess.run([R, "patch", "basis", "delta.pz", "out"], capture_output=True)
            check(r.returncode == 0 and read("out") == read("new"), f"patch with a pzstd delta: {r.returncode}")
            rm("out")
            pz = read("delta.pz")
            write("trunc.pz", pz[: len(pz) - 5])
            r = subprocess.run([R, "patch", "basis", "trunc.pz", "out"], capture_output=True)
            check(r.returncode == 103 and not os.path.exists("out"), f"truncated pzstd delta: {r.returncode}")
            bad = bytearray(pz)
            bad[len(bad) - 2] ^= 0x55  # inside the content checksum
            write("bad.pz", bytes(bad))
            r = subprocess.run([R, "patch", "basis", "bad.pz", "out"], capture_output=True)
            check(r.returncode == 106 and not os.path.exists("out"), f"corrupt pzstd delta: {r.returncode}")
            rm("sig.raw", "delta.raw", "sig.pz", "delta.pz", "trunc.pz", "bad.pz")
        else:
            print("note: pzstd is not installed; its cases were not run")
        if shutil.which("zstd"):
            # Several frames with skippable frames between them, as concatenated files are.
            half = len(delta) // 2
            parts = [subprocess.run(["zstd", "-q", "-c"], input=p, capture_output=True, check=True).stdout
                     for p in (delta[:half], delta[half:])]
            write("multi.zst", bytes.fromhex("5e2a4d18 00000000") + parts[0] + bytes.fromhex("5f2a4d18 02000000 7879")
                  + parts[1])
            r = subprocess.run([R, "patch", "basis", "multi.zst", "out"], capture_output=True)
            check(r.returncode == 0 and read("out") == read("new"), f"several frames: {r.returncode} {r.stderr!r}")
            rm("out", "multi.zst")
        rm("skip.zst", "cut.zst", "new.delta.zst", "new.delta")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    ap.add_argument("--capi", help="librsync.so.2 built from src/capi, for its out-of-memory cases")
    args = ap.parse_args()
    # meson points LD_LIBRARY_PATH at our librsync.so.2 (a dependency of this test):
    # Debian's rdiff must run on Debian's library. rdelta and ctypes need no search path.
    os.environ.pop("LD_LIBRARY_PATH", None)
    rdelta = os.path.abspath(args.rdelta)
    capi = os.path.abspath(args.capi) if args.capi else None
    rdiff = args.rdiff if args.rdiff and os.path.exists(args.rdiff) else None
    if not rdiff:
        print("note: rdiff not found; comparisons with it are skipped")
    work = tempfile.mkdtemp(prefix="rdelta-proc-")
    os.chdir(work)
    suite = Suite(rdelta, rdiff, work, capi)
    try:
        for part in (suite.stdin_offset, suite.signals, suite.closed_fds, suite.out_of_memory, suite.rdiff_name,
                     suite.zstd_streams, suite.written_while_read):
            try:
                part()
            except Exception as e:  # one broken part must not hide the others
                check(False, f"{part.__name__} stopped: {type(e).__name__}: {e}")
            os.chdir(work)
    finally:
        os.chdir("/")
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(summary())


if __name__ == "__main__":
    main()
