#!/usr/bin/env python3
"""Byte-for-byte interoperability test of rdelta against librsync 2.3.2's rdiff.

    interop.py --rdelta PATH [--rdiff /usr/bin/rdiff] [--quick] [--jobs N]
               [--workdir DIR] [--seed S] [--only SUBSTRING]

For every generated basis/new pair both tools must produce identical signatures,
identical deltas (from the same signature file; rdelta's made with --no-checksum,
since by default it appends a checksum trailer) and identical patch output in every
cross combination, with identical exit codes; subsets go through stdin/stdout pipes
and tiny/odd -I/-O buffer sizes. Crafted bad signatures and deltas must give rdiff's
exit code without crashing. rdiff is the oracle; the expected exit codes written next
to the crafted inputs are checked against rdiff too, so a crafted input that does not
provoke what it claims is reported instead of silently passing.

Prints one `FAIL [case] ...` line per failed check (with a command to reproduce, run
from the kept work directory) and finally `N passed, M failed`; exit status 0 iff M == 0.
"""

import argparse
import concurrent.futures
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import random
import struct
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402

TIMEOUT = 180  # seconds per command; a hang is reported as a failure, not waited out


class Proc:
    def __init__(self, tool, argv, cwd, rc, out, err, stdin_name):
        self.tool, self.rc, self.out, self.err = tool, rc, out, err
        cmd = shlex.join(argv)
        if stdin_name:
            cmd = f"cat {shlex.quote(stdin_name)} | {cmd}"  # a real pipe, not a redirect
        self.cmd = f"cd {shlex.quote(str(cwd))} && {cmd}"

    @property
    def crashed(self):
        # timeout (None), killed by a signal (<0), or 128+ (shell-style signal codes)
        return self.rc is None or self.rc < 0 or self.rc >= 128

    def rc_text(self):
        if self.rc is None:
            return "timeout"
        return f"signal {-self.rc}" if self.rc < 0 else str(self.rc)


def first_difference(a, b, is_delta=False):
    """None if equal, else a one-line description of where a (rdiff) and b differ."""
    if a == b:
        return None
    i = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    text = f"sizes {len(a)} vs {len(b)}, first difference at byte {i}"
    if is_delta:
        text += (f"; rdiff: {corpus.describe_delta(a, around=i)}"
                 f" | other: {corpus.describe_delta(b, around=i)}")
    return text


class Harness:
    def __init__(self, rdelta, rdiff, root):
        self.tools = {"rdiff": rdiff, "rdelta": rdelta}
        self.same = same_program(rdelta, rdiff)
        self.trailer_by_default = appends_trailer(rdelta)
        self.root = root
        self.passed = self.failed = 0
        self.rdiff_crashes = []
        self.lock = threading.Lock()

    # -- bookkeeping ---------------------------------------------------------
    def check(self, ok, case, what, proc=None):
        with self.lock:
            if ok:
                self.passed += 1
                return True
            self.failed += 1
            where = f" :: {proc.cmd}" if proc is not None else ""
            print(f"FAIL [{case}] {what}{where}", flush=True)
            return False

    def run(self, tool, args, cwd, stdin=None, stdin_name=None, out_file=None, case=""):
        """Run one tool. For rdelta with an output file, also verify the directory
        afterwards: a success adds exactly that file; a failure adds nothing and leaves
        no temporary files (rdelta-only: rdiff creates the output before validating)."""
        if tool == "rdelta" and self.trailer_by_default and args and args[0] == "delta":
            args = ["--no-checksum", *args]  # rdiff's bytes: by default a checksum trailer follows END
        argv = [self.tools[tool]] + [str(a) for a in args]
        before = set(os.listdir(cwd)) if out_file and tool == "rdelta" else None
        try:
            p = subprocess.run(argv, cwd=cwd, input=stdin,
                               stdin=None if stdin is not None else subprocess.DEVNULL,
                               capture_output=True, timeout=TIMEOUT)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = None, b"", b""
        proc = Proc(tool, argv, cwd, rc, out, err, stdin_name)
        if before is not None:
            added = set(os.listdir(cwd)) - before
            if rc == 0:
                self.check(added == {out_file}, case,
                           f"rdelta succeeded but created {sorted(added)} instead of "
                           f"just {out_file!r}", proc)
            elif not self.same:
                self.check(not added, case, f"rdelta failed (exit {proc.rc_text()}) but "
                           f"left {sorted(added)} in the output directory", proc)
        return proc

    def compare_rc(self, case, ref, test, expected=None):
        """Exit codes must match rdiff's. `expected` documents what the case is meant to
        provoke; a mismatch there means the harness (or the doc) is wrong."""
        if expected is not None:
            self.check(ref.rc == expected, case, f"harness expectation: rdiff exited "
                       f"{ref.rc_text()}, case was built to give {expected}", ref)
        if ref.crashed:
            # rdiff aborts on some absurd inputs; rdelta only has to survive them.
            with self.lock:
                self.rdiff_crashes.append(f"{case} ({ref.rc_text()})")
            if not self.same:
                self.check(not test.crashed, case, f"rdelta crashed ({test.rc_text()}); "
                           f"rdiff crashed too ({ref.rc_text()}) but rdelta must not", test)
            return False
        ok = self.check(test.rc == ref.rc, case, f"exit code {test.rc_text()} != rdiff's "
                        f"{ref.rc_text()}; stderr: {test.err[-300:]!r}", test)
        if ok and ref.rc != 0:
            self.check(bool(test.err.strip()), case, "failed silently (empty stderr)", test)
        return ok

    def compare_bytes(self, case, what, ref_bytes, test_bytes, proc, is_delta=False):
        diff = first_difference(ref_bytes, test_bytes, is_delta)
        return self.check(diff is None, case, f"{what} differ: {diff}", proc)

    # -- positive cases ------------------------------------------------------
    def run_case(self, case):
        basis, new = case.materialize()
        d = self.root / "cases" / case.name
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        (d / "basis").write_bytes(basis)
        (d / "new").write_bytes(new)
        opts = case.sig_options()
        name = case.name

        def pair(args_for, out_name, expected=0, extra_test_args=()):
            r = self.run("rdiff", args_for(f"{out_name}.rdiff"), d,
                         out_file=f"{out_name}.rdiff", case=name)
            t = self.run("rdelta", list(extra_test_args) + args_for(f"{out_name}.rdelta"), d,
                         out_file=f"{out_name}.rdelta", case=name)
            self.compare_rc(name, r, t, expected)
            return r, t

        # (a) signature
        r, t = pair(lambda o: ["signature", *opts, "basis", o], "sig", case.expect_sig_rc)
        if r.rc != 0:
            return
        sig = (d / "sig.rdiff").read_bytes()
        if t.rc == 0:
            self.compare_bytes(name, "signature bytes", sig, (d / "sig.rdelta").read_bytes(), t)
        # (b) delta, both from rdiff's signature so a signature bug cannot mask this
        r, t = pair(lambda o: ["delta", "sig.rdiff", "new", o], "delta")
        if r.rc != 0:
            return
        delta = (d / "delta.rdiff").read_bytes()
        if t.rc == 0:
            self.compare_bytes(name, "delta bytes", delta, (d / "delta.rdelta").read_bytes(),
                               t, is_delta=True)
        # (c) patch in every cross combination
        r = self.run("rdiff", ["patch", "basis", "delta.rdiff", "out.rdiff"], d, case=name)
        self.check(r.rc == 0, name, f"rdiff patch of its own delta exited {r.rc_text()}", r)
        if r.rc != 0:
            return
        out = (d / "out.rdiff").read_bytes()
        strong = struct.unpack(">I", sig[8:12])[0]
        if strong >= 8:  # below that, false matches may legitimately corrupt the output
            self.compare_bytes(name, "rdiff round trip vs new file", new, out, r)
        t = self.run("rdelta", ["patch", "basis", "delta.rdiff", "out.x1"], d,
                     out_file="out.x1", case=name)
        if self.compare_rc(name, r, t):
            self.compare_bytes(name, "rdelta patch of rdiff delta", out,
                               (d / "out.x1").read_bytes(), t)
        if (d / "delta.rdelta").exists():
            x = self.run("rdiff", ["patch", "basis", "delta.rdelta", "out.x2"], d, case=name)
            if self.check(x.rc == 0, name, f"rdiff patch of rdelta delta exited "
                          f"{x.rc_text()}", x):
                self.compare_bytes(name, "rdiff patch of rdelta delta", out,
                                   (d / "out.x2").read_bytes(), x)
        if case.pipes:
            self.run_pipes(case, d, opts, basis, new, delta, out)
        if case.buffers:
            self.run_buffers(case, d, opts, sig, delta, out)

    def run_pipes(self, case, d, opts, basis, new, delta, out):
        """stdin/stdout through real pipes (a `<` redirect would still be a regular file
        to fstat and would not exercise the stream defaults)."""
        name = case.name + "/pipe"
        explicit = sum(map(ord, case.name)) % 2 == 0  # alternate `-` and omitted names
        dash = ["-", "-"] if explicit else []
        r = self.run("rdiff", ["signature", *opts, *dash], d, basis, "basis", case=name)
        t = self.run("rdelta", ["signature", *opts, *dash], d, basis, "basis", case=name)
        if self.compare_rc(name, r, t, 0) and r.rc == 0:
            if case.block is None:  # proves the input really was a stream (doc 4.2)
                self.check(r.out[4:8] == corpus.u32(2048), name, "harness expectation: "
                           "stream signature without -b should have block_len 2048", r)
            self.compare_bytes(name, "signature from stdin", r.out, t.out, t)
        # delta with the new file on stdin; the result must equal the file-based delta
        for tool in ("rdiff", "rdelta"):
            if explicit:
                p = self.run(tool, ["delta", "sig.rdiff", "-", f"delta.pipe.{tool}"], d, new,
                             "new", out_file=f"delta.pipe.{tool}", case=name)
                got = (d / f"delta.pipe.{tool}").read_bytes() if p.rc == 0 else b""
            else:
                p = self.run(tool, ["delta", "sig.rdiff"], d, new, "new", case=name)
                got = p.out
            if self.check(p.rc == 0, name, f"{tool} delta from stdin exited {p.rc_text()}", p):
                self.compare_bytes(name, f"{tool} delta from stdin vs file delta", delta, got,
                                   p, is_delta=True)
            p = self.run(tool, ["patch", "basis", *dash], d, delta, "delta.rdiff", case=name)
            if self.check(p.rc == 0, name, f"{tool} patch from stdin exited {p.rc_text()}", p):
                self.compare_bytes(name, f"{tool} patch with delta on stdin", out, p.out, p)

    def run_buffers(self, case, d, opts, sig, delta, out):
        """-I/-O must not change any output, except the slack delta (empty signature)
        whose literal chunking follows -I (doc 7.1): there rdiff with the same -I rules."""
        ib, ob = case.buffers
        name = f"{case.name}/I{ib}O{ob}"
        bufs = ["-I", str(ib), "-O", str(ob)]
        t = self.run("rdelta", ["signature", *bufs, *opts, "basis", "sig.buf"], d,
                     out_file="sig.buf", case=name)
        if self.check(t.rc == 0, name, f"signature exited {t.rc_text()}", t):
            self.compare_bytes(name, "signature with -I/-O", sig, (d / "sig.buf").read_bytes(), t)
        t = self.run("rdelta", ["delta", *bufs, "sig.rdiff", "new", "delta.buf"], d,
                     out_file="delta.buf", case=name)
        want = delta
        if len(sig) == 12:
            r = self.run("rdiff", ["delta", *bufs, "sig.rdiff", "new", "delta.buf.rdiff"], d,
                         case=name)
            self.check(r.rc == 0, name, f"rdiff slack delta exited {r.rc_text()}", r)
            want = (d / "delta.buf.rdiff").read_bytes() if r.rc == 0 else b""
        if self.check(t.rc == 0, name, f"delta exited {t.rc_text()}", t):
            self.compare_bytes(name, "delta with -I/-O", want, (d / "delta.buf").read_bytes(),
                               t, is_delta=True)
        t = self.run("rdelta", ["patch", *bufs, "basis", "delta.rdiff", "out.buf"], d,
                     out_file="out.buf", case=name)
        if self.check(t.rc == 0, name, f"patch exited {t.rc_text()}", t):
            self.compare_bytes(name, "patch with -I/-O", out, (d / "out.buf").read_bytes(), t)

    # -- bad inputs ----------------------------------------------------------
    def bad_dir(self, name, files):
        d = self.root / "bad" / name
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
        for fname, data in files.items():
            (d / fname).write_bytes(data)
        return d

    def run_bad_sig(self, name, sig, expected, new):
        """Corrupt signature fed to `delta`."""
        d = self.bad_dir(name, {"sig": sig, "new": new})
        r = self.run("rdiff", ["delta", "sig", "new", "out.rdiff"], d, case=name)
        t = self.run("rdelta", ["delta", "sig", "new", "out.rdelta"], d,
                     out_file="out.rdelta", case=name)
        if self.compare_rc(name, r, t, expected) and r.rc == 0:
            self.compare_bytes(name, "delta from odd signature", (d / "out.rdiff").read_bytes(),
                               (d / "out.rdelta").read_bytes(), t, is_delta=True)

    def run_bad_delta(self, name, delta, expected, basis):
        """Corrupt or unusual delta fed to `patch`; basis None means a pipe basis."""
        piped = basis is None
        if piped:  # the file is only there so the printed `cat basis | ...` reproduces it
            basis = self.bad_pipe_basis
        d = self.bad_dir(name, {"delta": delta, "basis": basis})
        stdin, stdin_name = (basis, "basis") if piped else (None, None)
        src = "-" if piped else "basis"
        r = self.run("rdiff", ["patch", src, "delta", "out.rdiff"], d, stdin, stdin_name,
                     case=name)
        t = self.run("rdelta", ["patch", src, "delta", "out.rdelta"], d, stdin, stdin_name,
                     out_file="out.rdelta", case=name)
        if self.compare_rc(name, r, t, expected) and r.rc == 0:
            self.compare_bytes(name, "patch output", (d / "out.rdiff").read_bytes(),
                               (d / "out.rdelta").read_bytes(), t)

    def bad_tasks(self, seed, quick):
        """Make the reference files with rdiff, then list the bad-input tasks."""
        rng = random.Random(f"{seed}/bad")
        basis = corpus.content(rng, "text", 1000)
        big_basis = rng.randbytes(300000)
        _, new = corpus.apply_edit(rng, "text", "insert", basis, 64)
        d = self.bad_dir("reference", {"basis": basis, "new": new})
        made = {}
        for out, args in [("sig", ["signature", "-b", "64", "-S", "8", "basis"]),
                          ("md4sig", ["signature", "-H", "md4", "-b", "64", "basis"]),
                          ("delta", ["delta", "sig", "new"])]:
            p = self.run("rdiff", args + [out], d)
            if p.rc != 0:
                sys.exit(f"cannot make reference {out} with rdiff: {p.cmd}")
            made[out] = (d / out).read_bytes()
        valid_deltas = [made["delta"]]
        for i, edit in enumerate(["delete", "overwrite", "shuffle"]):
            _, other = corpus.apply_edit(rng, "text", edit, basis, 16)
            (d / f"new{i}").write_bytes(other)
            self.run("rdiff", ["signature", "-b", "16", "basis", f"sig{i}"], d)
            self.run("rdiff", ["delta", f"sig{i}", f"new{i}", f"delta{i}"], d)
            valid_deltas.append((d / f"delta{i}").read_bytes())
        self.bad_pipe_basis = basis
        tasks = [(a[0], lambda a=a: self.run_bad_sig(*a, new)) for a in
                 corpus.bad_signatures(made["sig"], made["md4sig"], made["delta"], rng, quick)]
        bases = {"small": basis, "big": big_basis, "empty": b"", "pipe": None}
        for name, delta, expected, which in corpus.bad_deltas(rng, len(basis), len(big_basis),
                                                               valid_deltas, quick):
            tasks.append((f"delta-{name}", lambda a=(f"delta-{name}", delta, expected,
                                                    bases[which]): self.run_bad_delta(*a)))
        tasks.append(("sig-of-directory", self.run_sig_of_directory))
        return tasks

    def run_sig_of_directory(self):
        """An unreadable basis (a directory) is an IO error (doc 8: exit 100)."""
        d = self.bad_dir("sig-of-directory", {})
        (d / "adir").mkdir()
        r = self.run("rdiff", ["signature", "adir", "out.rdiff"], d)
        t = self.run("rdelta", ["signature", "adir", "out.rdelta"], d, out_file="out.rdelta",
                     case="sig-of-directory")
        self.compare_rc("sig-of-directory", r, t, 100)


def same_program(a, b):
    """True when the binary under test is rdiff itself (then rdelta-only checks that rdiff
    would fail are skipped)."""
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return True
        return Path(a).read_bytes() == Path(b).read_bytes()
    except OSError:
        return False


def appends_trailer(program):
    """True for rdelta under its own name, whose deltas end with a checksum trailer unless
    --no-checksum; not for rdiff (Debian's, rdelta named rdiff, rdiff on our library)."""
    p = subprocess.run([program, "--version"], capture_output=True, stdin=subprocess.DEVNULL)
    return p.stdout.startswith(b"rdelta ")


def resolve(program):
    path = shutil.which(program) or program
    if not os.access(path, os.X_OK):
        sys.exit(f"not an executable: {program}")
    return os.path.abspath(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--workdir", help="keep all files here (default: temp dir, removed "
                    "unless something failed)")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--only", help="run only cases whose name contains this")
    args = ap.parse_args()

    rdelta, rdiff = resolve(args.rdelta), resolve(args.rdiff)
    root = Path(args.workdir or tempfile.mkdtemp(prefix="rdelta-interop-")).resolve()
    root.mkdir(parents=True, exist_ok=True)
    h = Harness(rdelta, rdiff, root)
    started = time.monotonic()
    if h.same:
        print("note: --rdelta is rdiff itself; rdelta-only checks (no output file left "
              "on failure, no crash where rdiff aborts) are skipped", flush=True)

    cases = corpus.build_cases(args.seed, args.quick)
    if args.only:
        cases = [c for c in cases if args.only in c.name]
    cases.sort(key=lambda c: -c.size)  # big files first for better load balance
    tasks = [(c.name, lambda c=c: h.run_case(c)) for c in cases]
    bad = h.bad_tasks(args.seed, args.quick)
    if args.only:
        bad = [(name, task) for name, task in bad if args.only in name]
    tasks += bad
    print(f"seed {args.seed}: {len(cases)} corpus cases, {len(bad)} bad-input cases, "
          f"{args.jobs} jobs, workdir {root}", flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(task): name for name, task in tasks}
        for f in concurrent.futures.as_completed(futures):
            try:
                f.result()
            except Exception as e:  # a harness bug must be visible, never a silent pass
                where = traceback.extract_tb(e.__traceback__)[-1]
                h.check(False, futures[f], f"harness exception {type(e).__name__}: {e} "
                        f"(interop line {where.lineno})")

    if h.rdiff_crashes:
        print(f"note: rdiff itself crashed on {len(h.rdiff_crashes)} input(s), where rdelta "
              f"only has to exit cleanly: {', '.join(sorted(h.rdiff_crashes))}", flush=True)

    print(f"elapsed {time.monotonic() - started:.1f}s", flush=True)
    if args.workdir is None and h.failed == 0:
        shutil.rmtree(root, ignore_errors=True)
    elif h.failed:
        print(f"files kept in {root} (re-run a case with --seed {args.seed} --only NAME)")
    print(f"{h.passed} passed, {h.failed} failed")
    return 0 if h.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
