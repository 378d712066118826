"""written_while_read.py - item 11 of safety_process_test.py: an input written while
it is read (a signature's file, a patch's basis or delta, a delta's signature) fails
with 100 and publishes nothing; a change of mode or access time alone passes. The
process is stopped once it has the file open (or, for a patch's basis, held waiting
for its delta on a FIFO), the file written, the process continued."""

import os
import signal
import subprocess
import time

from file_ops import read, rm, write
from tally import check


def read_syscalls(pid):
    """How many read system calls the process has made (-1 once it is gone)."""
    try:
        with open(f"/proc/{pid}/io") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("syscr:"))
    except (OSError, StopIteration, ValueError):
        return -1


class WrittenWhileRead:
    """Mixed into safety_process_test.Suite, which sets self.rdelta and runs
    written_while_read() in the work folder."""

    def stopped_while_open(self, args, path, modify, prog=None, env=None):
        """Run rdelta, stop it once it has `path` open, call `modify`, continue it."""
        p = subprocess.Popen([prog or self.rdelta, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        target, deadline, fd = os.path.realpath(path), time.monotonic() + 30, None
        while p.poll() is None and time.monotonic() < deadline and fd is None:
            try:
                fds = os.listdir(f"/proc/{p.pid}/fd")
                fd = next((n for n in fds if os.readlink(f"/proc/{p.pid}/fd/{n}") == target), None)
            except OSError:
                pass
        # The file is opened, then fstat'ed (the version a change is measured against), then
        # read: stopping between open and fstat would make the change part of that version.
        # Wait for a read after the open, which comes after the fstat.
        reads = read_syscalls(p.pid)
        while p.poll() is None and time.monotonic() < deadline and read_syscalls(p.pid) == reads:
            pass
        p.send_signal(signal.SIGSTOP)
        opened = p.poll() is None
        self.read_offset = -1  # how far it had read the file sequentially when stopped
        try:
            with open(f"/proc/{p.pid}/fdinfo/{fd}") as info:
                self.read_offset = int(info.readline().split()[1])
        except (OSError, TypeError, ValueError, IndexError):
            pass
        modify()
        p.send_signal(signal.SIGCONT)
        out, err = p.communicate()
        return opened, p.returncode, out, err.decode(errors="replace")

    def patched_while_delta_held(self, args, modify, env=None):
        """Run a patch whose delta comes through the FIFO "wfifo": once it waits there
        for the delta with the basis open, call `modify`, then write the delta "wd".
        The basis is copied from only after the modification, whatever the timing."""
        rm("wfifo")
        os.mkfifo("wfifo")
        p = subprocess.Popen([self.rdelta, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        deadline, fifo = time.monotonic() + 30, None
        while p.poll() is None and time.monotonic() < deadline and fifo is None:
            try:
                fifo = os.open("wfifo", os.O_WRONLY | os.O_NONBLOCK)  # ENXIO until it opens its end
            except OSError:
                pass
        basis = os.path.realpath("wb")

        def waiting_with_basis_open():
            try:
                fds = os.listdir(f"/proc/{p.pid}/fd")
                if not any(os.readlink(f"/proc/{p.pid}/fd/{n}") == basis for n in fds):
                    return False
                # A thread asleep in read(2) on the FIFO (wchan: pipe_read or anon_pipe_read).
                return any(read("/proc/%d/task/%s/wchan" % (p.pid, t)).endswith(b"pipe_read")
                           for t in os.listdir(f"/proc/{p.pid}/task"))
            except OSError:
                return False

        held = False
        while p.poll() is None and time.monotonic() < deadline and fifo is not None and not held:
            held = waiting_with_basis_open()
        modify()
        if fifo is not None:
            os.set_blocking(fifo, True)
            try:
                os.write(fifo, read("wd"))
            except BrokenPipeError:
                pass
            os.close(fifo)
        out, err = p.communicate()
        rm("wfifo")
        return held, p.returncode, out, err.decode(errors="replace")

    def written_while_read(self):
        data = os.urandom(8 << 20)
        write("wb", data)
        subprocess.run([self.rdelta, "signature", "wb", "wb.sig"], check=True)
        write("wn", data[:3 << 20] + os.urandom(1000) + data[3 << 20:])
        subprocess.run([self.rdelta, "delta", "wb.sig", "wn", "wd"], check=True)

        def poke_at(offset):
            def poke():
                with open("wb", "r+b") as f:
                    f.seek(offset)
                    f.write(b"\xff")
            return poke

        def grow():
            with open("wb", "ab") as f:
                f.write(b"more")

        def poke_delta():
            with open("wd", "r+b") as f:
                f.seek(10)
                same = f.read(1)
                f.seek(10)
                f.write(same)  # the same byte written back: only the time moves

        cases = ((["signature", "wb", "ws"], "ws", "wb", poke_at(0), "signature, a byte changed"),
                 (["patch", "wb", "wd", "wo"], "wo", "wd", poke_delta, "patch, the delta written"),
                 (["signature", "wb", "ws"], "ws", "wb", grow, "signature, the file grew"),
                 (["patch", "wb", "wfifo", "wo"], "wo", "wb", poke_at(100), "patch basis, a byte changed"),
                 (["patch", "wb", "wfifo", "-"], None, "wb", poke_at(100), "patch basis, output to a stream"))
        for args, out, changed, modify, what in cases:
            if "wfifo" in args:  # patch reads the basis at random: hold the delta instead
                write("wb", data)
                os.utime("wb", (1_000_000_000, 1_000_000_000))
                rm("wo")
                held, rc, _, err = self.patched_while_delta_held(args, modify)
                check(held, f"{what}: the patch never waited for its delta with the basis open")
                check(rc == 100 and "written while it was read" in err and "wb:" in err
                      and (out is None or not os.path.exists(out)),
                      f"{what}: fails with 100 and publishes nothing (exit {rc}, {err.strip()!r})")
                continue
            write("wb", data)
            for n in ("wb", "wd"):
                os.utime(n, (1_000_000_000, 1_000_000_000))  # an old time: any write moves it
            # On an idle machine an 8 MiB signature can end between two polls of
            # /proc: the scalar kernels give the poll more time, and a run that
            # still ended first is tried again (the stop is what is tested, not when).
            scalar = dict(os.environ, RDELTA_FORCE_ISA="scalar")
            for _ in range(5):
                rm("ws", "wo")
                opened, rc, _, err = self.stopped_while_open(args, changed, modify, env=scalar)
                if opened:
                    break
                write("wb", data)
                for n in ("wb", "wd"):
                    os.utime(n, (1_000_000_000, 1_000_000_000))
            if not opened:
                check(False, f"{what}: the run ended before it could be stopped")
                continue
            check(rc == 100 and "written while it was read" in err and f"{changed}:" in err
                  and (out is None or not os.path.exists(out)),
                  f"{what}: fails with 100 and publishes nothing (exit {rc}, {err.strip()!r})")
        # delta: the signature is read whole first; stop it there (a large signature).
        big = os.urandom(64 << 20)
        write("wbig", big)
        subprocess.run([self.rdelta, "signature", "-b", "64", "wbig", "wbig.sig"], check=True)
        write("wsig", read("wbig.sig"))
        os.utime("wsig", (1_000_000_000, 1_000_000_000))
        rm("wdo")

        def poke_sig():
            with open("wsig", "r+b") as f:
                f.seek(100)
                same = f.read(1)
                f.seek(100)
                f.write(same)

        for attempt in range(5):  # stopped before the signature was read whole
            rm("wdo")
            os.utime("wsig", (1_000_000_000, 1_000_000_000))
            opened, rc, _, err = self.stopped_while_open(["delta", "wsig", "wn", "wdo"], "wsig", poke_sig)
            if opened and 0 < self.read_offset < os.path.getsize("wsig"):
                break
        else:
            check(False, "delta: never stopped while the signature was being loaded")
        check(rc == 100 and "written while it was read" in err and not os.path.exists("wdo"),
              f"delta: a signature written while it is loaded fails with 100 (exit {rc}, {err.strip()!r})")
        rm("wbig", "wbig.sig", "wsig", "wdo")
        write("wb", data)

        def metadata_only():  # what a backup tool or a reader may do meanwhile
            os.chmod("wb", 0o600)
            os.utime("wb", ns=(time.time_ns(), os.stat("wb").st_mtime_ns))

        for args, out in ((["signature", "wb", "ws"], "ws"), (["patch", "wb", "wd", "wo"], "wo")):
            rm(out)
            opened, rc, _, err = self.stopped_while_open(args, "wb", metadata_only)
            check(rc == 0 and os.path.exists(out),
                  f"{args[0]}: an input whose mode and access time changed, not its data, passes ({err!r})")
        rm("wb", "wb.sig", "wn", "wd", "ws", "wo")
