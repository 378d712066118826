#!/usr/bin/env python3
"""Command-line behaviour of rdelta compared with librsync 2.3.2's rdiff.

    cli_test.py --rdelta PATH [--rdiff /usr/bin/rdiff] [--keep DIR]

Each test runs the same argument list with both programs, each in its own fresh
directory holding identical input files. Checked:
  * exit codes are equal (and rdiff's equals the code the test was written for, so a
    test that does not provoke what it claims is reported; exit codes: man/rdelta.1, EXIT STATUS);
  * on success: identical stdout bytes and identical directory contents afterwards
    (rdelta's deltas are made with --no-checksum: by default they end with a trailer);
  * on failure: rdelta printed something to stderr;
  * --help/--version: identical stdout and stderr text, rdelta run through a symlink
    named `rdiff` (the program name appears in the text);
  * rdelta's compression options (-z, -i, --gzip, --bzip2, --zstd) are unknown options
    under the name `rdiff`, as in Debian's rdiff (tests/cli/compression_test.py covers
    them under the name rdelta);
  * -s: statistics lines on stderr match the shape of rdiff's lines (not the numbers).
rdelta-only checks (skipped when --rdelta is rdiff itself, which fails them): a failed
run leaves the directory exactly as it was (no created, truncated or temporary files),
does not crash where rdiff aborts, and (non-usage errors) prints one stderr line naming
the offending file.

Prints `FAIL [test] ...` per failed check and finally `N passed, M failed`.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

CRASH = "crash"  # expected "exit code" when rdiff aborts (SIGABRT, doc 9.8)
USAGE, IO, ENDED, MAGIC, CORRUPT, PARAM = 101, 100, 103, 104, 106, 108


@dataclass
class T:
    name: str
    args: list
    expect: object = 0          # rdiff's documented exit code, or CRASH
    stdin: str = None           # name of a file whose bytes are piped to stdin
    pre: dict = field(default_factory=dict)  # extra files: name -> bytes, None = directory
    stats: str = None           # signature|delta|patch: check the -s lines
    names: tuple = ()           # rdelta-only: its one-line error must name one of these
    text: bool = False          # help/version: compare stdout+stderr under the name rdiff
    as_rdiff: bool = False      # run rdelta under the name rdiff (options rdiff lacks)


# Statistics line shapes (doc 9.5). Sections appear only when their counts are non-zero.
NUM = r"\d+\.\d"
SPEED = (rf" speed\[{NUM} MB \({NUM} MB/s\) in, {NUM} MB \({NUM} MB/s\) out, \d+ sec\]$")
SECTIONS = (r"(literal\[\d+ cmds, \d+ bytes, \d+ cmdbytes\] )?"
            r"(copy\[\d+ cmds, \d+ bytes, \d+ cmdbytes, \d+ false\])?"
            r"(signature\[\d+ blocks, \d+ bytes per block\])?")
RATIO = r"(?:\d+\.\d{3}|-?nan)"
MATCH_LINE = (rf"^librsync: match statistics: signature\[\d+ searches, \d+ \({RATIO}%\) "
              rf"matches, \d+ \({RATIO}x\) weak sum compares, \d+ \({RATIO}%\) strong sum "
              rf"compares, \d+ \({RATIO}%\) strong sum calcs\]$")


def op_line(op):
    return rf"^librsync: {op} statistics: {SECTIONS}{SPEED}"


STATS_LINES = {"signature": [op_line("signature")],
               "delta": [op_line("loadsig"), MATCH_LINE, op_line("delta")],
               "patch": [op_line("patch")]}


def u32(v):
    return v.to_bytes(4, "big")


def base_files(rdiff, tmp):
    """Small inputs shared by all tests, made with rdiff so they are valid by definition."""
    words = b"alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu\n"
    basis = b"".join(words[i % 7:] + b"%d\n" % i for i in range(150))
    new = basis[:3000] + b"INSERTED TEXT\n" * 20 + basis[3500:]
    files = {"basis": basis, "new": new}
    for name, data in files.items():
        (tmp / name).write_bytes(data)
    for out, args in (("sig", ["signature", "basis"]), ("delta", ["delta", "sig", "new"])):
        subprocess.run([rdiff] + args + [out], cwd=tmp, check=True)
        files[out] = (tmp / out).read_bytes()
    return files


def build_tests(files):
    big = bytes((i * 7919 + (i >> 8)) & 0xFF for i in range(200000))
    M, END = u32(0x72730236), b"\x00"
    # COPY(0,150000) succeeds (rdiff flushes 131072 bytes of it), COPY(400000,1) is past EOF
    past_eof = M + b"\x47\x00" + u32(150000) + b"\x4d" + u32(400000) + b"\x01" + END
    corrupt_delta = M + b"\x03abc" + b"\x99" + END  # literal then a reserved opcode
    existing = {"existing.out": b"precious old content\n"}
    adir = {"adir": None}
    t = []
    # --- option spellings; all must succeed with rdiff-identical output -------------
    for name, args in [
            ("long-eq", ["signature", "--block-size=512", "basis", "out"]),
            ("long-space", ["signature", "--block-size", "512", "basis", "out"]),
            ("short-attached", ["signature", "-b512", "basis", "out"]),
            ("short-space", ["signature", "-b", "512", "basis", "out"]),
            ("opts-after-files", ["signature", "basis", "out", "-b", "512", "-S", "8"]),
            ("opts-between-files", ["signature", "basis", "-H", "md4", "out"]),
            ("opts-before-action", ["-b", "512", "signature", "basis", "out"]),
            ("clustered-fb-attached", ["-fb512", "signature", "basis", "sig"]),
            ("double-dash", ["signature", "--", "basis", "out"]),
            ("double-dash-option-named-file", ["--", "signature", "basis", "-b"]),
            ("hex", ["signature", "-b", "0x100", "basis", "out"]),
            ("hex-upper", ["signature", "-b", "0X1f", "basis", "out"]),
            ("octal", ["signature", "-b", "010", "basis", "out"]),
            ("leading-space-number", ["signature", "-b", " 12", "basis", "out"]),
            ("empty-number", ["signature", "-b", "", "basis", "out"]),
            ("S-minus1", ["signature", "-S", "-1", "basis", "out"]),
            ("S-minus1-attached", ["signature", "-S-1", "basis", "out"]),
            ("S-minus1-long", ["signature", "--sum-size=-1", "basis", "out"]),
            ("S-hex", ["signature", "-S", "0x8", "basis", "out"]),
            ("S-below-minimum-warns", ["signature", "-S", "2", "basis", "out"]),
            ("S-16-md4", ["signature", "-H", "md4", "-S", "16", "basis", "out"]),
            ("b-1", ["signature", "-b", "1", "basis", "out"]),
            ("last-wins", ["signature", "-b", "100", "-b", "200", "basis", "out"]),
            ("hash-long", ["--hash=md4", "--rollsum=rollsum", "signature", "basis", "out"]),
            ("hash-short", ["-H", "blake2", "-R", "rabinkarp", "signature", "basis", "out"]),
            ("hash-md4-rk", ["signature", "-H", "md4", "basis", "out"]),
            ("force-long", ["--force", "signature", "basis", "sig"]),
            ("io-sizes-1", ["-I", "1", "-O", "1", "signature", "basis", "out"]),
            ("io-long", ["--input-size=7", "--output-size=13", "delta", "sig", "new", "out"]),
            ("io-zero", ["-I", "0", "-O", "0", "patch", "basis", "delta", "out"]),
            ("verbose", ["-v", "signature", "basis", "out"]),
            ("delta-ignores-sig-options", ["delta", "-b", "64", "-H", "md4", "sig", "new", "out"]),
            ("action-s", ["s", "basis", "out"]), ("action-sig", ["sig", "basis", "out"]),
            ("action-signatur", ["signatur", "basis", "out"]),
            ("action-empty", ["", "basis", "out"]),
            ("action-d", ["d", "sig", "new", "out"]), ("action-del", ["del", "sig", "new", "out"]),
            ("action-p", ["p", "basis", "delta", "out"]),
            ("action-pat", ["pat", "basis", "delta", "out"]),
            ("signature-stdout", ["signature", "basis"]),
            ("signature-dash-stdout", ["signature", "basis", "-"]),
            ("delta-stdout", ["delta", "sig", "new"]),
            ("patch-stdout", ["patch", "basis", "delta"])]:
        t.append(T(name, args))
    t += [T("signature-stdin", ["signature"], stdin="basis"),
          T("signature-dash-dash", ["signature", "-", "-"], stdin="basis"),
          T("signature-stdin-to-file", ["signature", "-", "out"], stdin="basis"),
          T("delta-new-stdin", ["delta", "sig"], stdin="new"),
          T("delta-new-dash", ["delta", "sig", "-", "out"], stdin="new"),
          T("delta-sig-stdin", ["delta", "-", "new", "out"], stdin="sig"),
          T("patch-delta-stdin", ["patch", "basis"], stdin="delta"),
          T("patch-delta-dash", ["patch", "basis", "-", "out"], stdin="delta"),
          T("patch-pipe-basis-copy", ["patch", "-", "delta", "out"], IO, stdin="basis",
            names=("stdin", "standard input", "basis", "'-'", '"-"')),
          T("double-dash-dash-file", ["signature", "-b", "64", "--", "-dash", "out"],
            pre={"-dash": b"file whose name starts with a dash\n" * 9})]
    # --- help and version, compared as text under the name rdiff -------------------
    for args in (["--help"], ["-?"], ["-h"], ["-V"], ["--version"], ["signature", "--help"],
                 ["-V", "--bogus"], ["--help", "-V"], ["-b", "12", "--version"]):
        t.append(T("text" + "".join(args), args, text=True))
    # --- usage errors: 101, no output file touched (rdelta-only) -------------------
    for name, args in [
            ("unknown-long", ["--bogus", "signature", "basis", "out"]),
            ("unknown-short", ["-x", "signature", "basis", "out"]),
            ("no-abbreviation", ["--stat", "signature", "basis", "out"]),
            ("unknown-debug", ["--debug", "signature", "basis", "out"]),
            ("unknown-paranoia", ["--paranoia", "signature", "basis", "out"]),
            ("unknown-after-version-not-reached", ["--bogus", "-V"]),
            ("missing-arg-short", ["signature", "basis", "out", "-b"]),
            ("missing-arg-long", ["signature", "basis", "out", "--block-size"]),
            ("missing-arg-H", ["signature", "basis", "out", "-H"]),
            ("arg-swallows-action", ["--block-size", "signature", "basis", "out"]),
            ("junk-number", ["signature", "-b", "12abc", "basis", "out"]),
            ("junk-float", ["signature", "-b", "1.5", "basis", "out"]),
            ("junk-hex-prefix", ["signature", "-S", "0x", "basis", "out"]),
            ("junk-I", ["-I", "x", "signature", "basis", "out"]),
            ("number-too-large", ["signature", "-b", "3000000000", "basis", "out"]),
            ("number-too-small", ["signature", "-b", "-3000000000", "basis", "out"]),
            ("O-too-large", ["-O", "99999999999", "signature", "basis", "out"]),
            ("no-action", []), ("no-action-options", ["-f", "-s"]),
            ("bad-action", ["frobnicate", "basis", "out"]),
            ("action-upper", ["S", "basis", "out"]),
            ("action-too-long", ["signatures", "basis", "out"]),
            ("delta-no-sig", ["delta"]), ("patch-no-basis", ["patch"]),
            ("too-many-signature", ["signature", "basis", "out", "extra"]),
            ("too-many-delta", ["delta", "sig", "new", "out", "extra"]),
            ("too-many-patch", ["patch", "basis", "delta", "out", "extra"]),
            ("too-many-after-double-dash", ["--", "signature", "basis", "-b", "5"]),
            ("hash-sha1", ["-H", "sha1", "signature", "basis", "out"]),
            ("hash-empty", ["--hash=", "signature", "basis", "out"]),
            ("hash-uppercase", ["-H", "MD4", "signature", "basis", "out"]),
            ("rollsum-foo", ["-R", "foo", "signature", "basis", "out"])]:
        t.append(T(name, args, USAGE))
    # rdelta's compression options do not exist under the name rdiff
    for name, args in [
            ("unknown-gzip-z", ["-z", "signature", "basis", "out"]),
            ("unknown-gzip-z-level", ["-z9", "signature", "basis", "out"]),
            ("unknown-gzip-clustered", ["-sz", "signature", "basis", "out"]),
            ("unknown-bzip2-i", ["-i", "signature", "basis", "out"]),
            ("unknown-gzip-long", ["--gzip", "signature", "basis", "out"]),
            ("unknown-gzip-long-level", ["--gzip=6", "delta", "sig", "new", "out"]),
            ("unknown-bzip2-long", ["--bzip2", "signature", "basis", "out"]),
            ("unknown-zstd", ["--zstd", "signature", "basis", "out"])]:
        t.append(T(name, args, USAGE, as_rdiff=True))
    t += [T("usage-keeps-existing-with-force", ["-f", "signature", "basis", "existing.out",
                                                "--bogus"], USAGE, pre=existing),
          T("hash-sha1-keeps-existing", ["-f", "-H", "sha1", "signature", "basis",
                                         "existing.out"], USAGE, pre=existing),
          T("too-many-keeps-existing", ["-f", "patch", "basis", "delta", "existing.out", "x"],
            USAGE, pre=existing)]
    # --- parameter errors: 108 ---------------------------------------------------
    t += [T("S-40", ["-S", "40", "signature", "basis", "out"], PARAM),
          T("S-17-md4", ["-H", "md4", "-S", "17", "signature", "basis", "out"], PARAM),
          T("S-33", ["-S", "33", "signature", "basis", "out"], PARAM),
          T("S-minus2", ["-S", "-2", "signature", "basis", "out"], PARAM),
          T("S-40-stdout", ["-S", "40", "signature", "basis"], PARAM),
          T("S-40-keeps-existing", ["-f", "-S", "40", "signature", "basis", "existing.out"],
            PARAM, pre=existing),
          # under the name rdiff, librsync's rs_sig_args lines, byte for byte
          T("S-40-as-rdiff", ["-S", "40", "signature", "basis", "out"], PARAM, as_rdiff=True),
          T("S-17-md4-as-rdiff", ["-H", "md4", "-S", "17", "signature", "basis"], PARAM,
            as_rdiff=True),
          T("S-1-warning-as-rdiff", ["-S", "1", "signature", "basis"], 0, as_rdiff=True)]
    # --- files: exists / -f / missing / unusable ----------------------------------
    t += [T("exists-signature", ["signature", "basis", "existing.out"], IO, pre=existing,
            names=("existing.out",)),
          T("exists-delta", ["delta", "sig", "new", "existing.out"], IO, pre=existing,
            names=("existing.out",)),
          T("exists-patch", ["patch", "basis", "delta", "existing.out"], IO, pre=existing,
            names=("existing.out",)),
          T("exists-dev-null", ["signature", "basis", "/dev/null"], IO, names=("/dev/null",)),
          T("force-signature", ["-f", "signature", "basis", "existing.out"], pre=existing),
          T("force-delta", ["delta", "-f", "sig", "new", "existing.out"], pre=existing),
          T("force-patch", ["patch", "basis", "delta", "existing.out", "--force"], pre=existing),
          T("missing-basis", ["signature", "missing.in", "out"], IO, names=("missing.in",)),
          T("missing-sig", ["delta", "missing.in", "new", "out"], IO, names=("missing.in",)),
          T("missing-new", ["delta", "sig", "missing.in", "out"], IO, names=("missing.in",)),
          T("missing-patch-basis", ["patch", "missing.in", "delta", "out"], IO,
            names=("missing.in",)),
          T("missing-delta", ["patch", "basis", "missing.in", "out"], IO, names=("missing.in",)),
          T("missing-keeps-existing", ["-f", "patch", "basis", "missing.in", "existing.out"],
            IO, pre=existing, names=("missing.in",)),
          T("empty-filename", ["signature", "", "out"], IO),
          T("output-is-directory", ["-f", "signature", "basis", "adir"], IO, pre=adir,
            names=("adir",)),
          T("output-dir-missing", ["signature", "basis", "nodir/out"], IO, names=("nodir",)),
          T("input-is-directory", ["signature", "adir", "out"], IO, pre=adir, names=("adir",)),
          T("new-is-directory", ["delta", "sig", "adir", "out"], IO, pre=adir, names=("adir",))]
    # --- failing runs: nothing created or truncated, no temp files (rdelta-only) --
    bad = {"corrupt.sig": files["sig"][:20], "corrupt.delta": corrupt_delta,
           "wrong.delta": files["sig"], "big.basis": big, "past-eof.delta": past_eof,
           "sub": None}
    t += [T("corrupt-sig", ["delta", "corrupt.sig", "new", "out"], ENDED, pre=bad,
            names=("corrupt.sig",)),
          T("corrupt-sig-keeps-existing", ["-f", "delta", "corrupt.sig", "new",
                                           "existing.out"], ENDED, pre={**bad, **existing},
            names=("corrupt.sig",)),
          T("corrupt-delta", ["patch", "basis", "corrupt.delta", "out"], CORRUPT, pre=bad,
            names=("corrupt.delta",)),
          T("corrupt-delta-in-subdir", ["patch", "basis", "corrupt.delta", "sub/out"], CORRUPT,
            pre=bad, names=("corrupt.delta",)),
          T("delta-bad-magic", ["patch", "basis", "wrong.delta", "out"], MAGIC, pre=bad,
            names=("wrong.delta",)),
          T("patch-past-eof-partial", ["patch", "big.basis", "past-eof.delta", "sub/out"],
            ENDED, pre=bad, names=("past-eof.delta", "big.basis")),
          T("patch-past-eof-keeps-existing", ["-f", "patch", "big.basis", "past-eof.delta",
                                              "existing.out"], ENDED, pre={**bad, **existing},
            names=("past-eof.delta", "big.basis")),
          T("patch-past-eof-stdout", ["patch", "big.basis", "past-eof.delta"], ENDED, pre=bad,
            names=("past-eof.delta", "big.basis"))]
    # --- values on which rdiff aborts: rdelta must fail cleanly (rdelta-only) -------
    t += [T("I-minus1", ["-I", "-1", "signature", "basis", "out"], CRASH),
          T("b-minus1", ["-b", "-1", "signature", "basis", "out"], CRASH),
          T("b-int-max", ["-b", "2147483647", "signature", "basis", "out"], CRASH)]
    # --- statistics ----------------------------------------------------------------
    empty_sig = {"empty": b"", "empty.sig": u32(0x72730147) + u32(256) + u32(32)}
    t += [T("stats-signature", ["-s", "signature", "basis", "out"], stats="signature"),
          T("stats-signature-empty", ["-s", "signature", "empty", "out"], pre=empty_sig,
            stats="signature"),
          T("stats-clustered-sf", ["-sf", "signature", "basis", "sig"], stats="signature"),
          T("stats-clustered-sfH", ["-sfH", "md4", "signature", "basis", "sig"],
            stats="signature"),
          T("stats-long", ["--statistics", "signature", "basis", "out"], stats="signature"),
          T("stats-alias", ["--stats", "signature", "basis", "out"], stats="signature"),
          T("stats-delta", ["-s", "delta", "sig", "new", "out"], stats="delta"),
          T("stats-delta-empty-sig", ["-s", "delta", "empty.sig", "new", "out"],
            pre=empty_sig, stats="delta"),
          T("stats-delta-stdout", ["delta", "--statistics", "sig", "new"], stats="delta"),
          T("stats-patch", ["-s", "patch", "basis", "delta", "out"], stats="patch"),
          T("stats-patch-empty", ["-s", "patch", "basis", "empty.delta", "out"],
            pre={"empty.delta": M + END}, stats="patch")]
    return t


def snapshot(d):
    """Every path under d with its content (None for directories)."""
    state = {}
    for dirpath, dirnames, filenames in os.walk(d):
        for n in dirnames:
            state[os.path.relpath(os.path.join(dirpath, n), d)] = None
        for n in filenames:
            p = os.path.join(dirpath, n)
            state[os.path.relpath(p, d)] = Path(p).read_bytes()
    return state


def state_diff(before, after):
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    parts = [f"{what} {names}" for what, names in
             (("added", added), ("removed", removed), ("changed", changed)) if names]
    return "; ".join(parts)


# rdiff's options that take a value (popt: attached, `=VALUE` or the next argument).
VALUE_SHORT, VALUE_LONG = set("bSHRIO"), {"block-size", "sum-size", "hash", "rollsum", "input-size", "output-size"}


def is_delta(args):
    """Whether rdiff reads `args` as the delta action (its first positional, abbreviated)."""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if a.startswith("--"):
            i += 2 if a[2:] in VALUE_LONG else 1
        elif a.startswith("-") and a != "-":
            rest = a[1:]
            i += 1
            for k, c in enumerate(rest):
                if c in VALUE_SHORT:
                    i += 0 if rest[k + 1:] else 1
                    break
        else:
            break
    return i < len(args) and args[i] != "" and "delta".startswith(args[i])


def shape(line):
    return re.sub(r"-?nan|\d+(?:\.\d+)?", "#", line)


class Runner:
    def __init__(self, rdelta, rdiff, root, files):
        self.rdelta, self.rdiff, self.root, self.files = rdelta, rdiff, root, files
        self.same = os.path.realpath(rdelta) == os.path.realpath(rdiff) or \
            Path(rdelta).read_bytes() == Path(rdiff).read_bytes()
        bindir = root / "bin"
        bindir.mkdir()
        self.rdelta_as_rdiff = bindir / "rdiff"  # the help text contains argv[0]'s name
        os.symlink(rdelta, self.rdelta_as_rdiff)
        self.passed = self.failed = 0

    def check(self, ok, test, what, cmd=None):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL [{test.name}] {what}" + (f" :: {cmd}" if cmd else ""), flush=True)
        return ok

    def execute(self, test, program, label, args=None):
        d = self.root / "tests" / re.sub(r"[^\w.-]", "_", test.name) / label
        args = test.args if args is None else args
        d.mkdir(parents=True)
        for name, data in {**self.files, **test.pre}.items():
            if data is None:
                (d / name).mkdir()
            else:
                (d / name).write_bytes(data)
        before = snapshot(d)
        stdin = self.files[test.stdin] if test.stdin else None
        cmd = f"cd {shlex.quote(str(d))} && " + \
            (f"cat {test.stdin} | " if test.stdin else "") + shlex.join([str(program)] + args)
        try:
            p = subprocess.run([str(program)] + args, cwd=d, input=stdin,
                               stdin=None if stdin else subprocess.DEVNULL,
                               capture_output=True, timeout=60)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = None, b"", b"timeout"
        return rc, out, err, before, snapshot(d), cmd

    def run(self, test):
        r_rc, r_out, r_err, _, r_after, r_cmd = self.execute(test, self.rdiff, "rdiff")
        program = self.rdelta_as_rdiff if test.text or test.as_rdiff else self.rdelta
        # Under its own name rdelta's delta carries a checksum trailer; --no-checksum
        # asks for rdiff's bytes, which are what these tests compare.
        args = test.args
        if program == self.rdelta and not self.same and is_delta(args):
            args = ["--no-checksum"] + args
        rc, out, err, before, after, cmd = self.execute(test, program, "rdelta", args)
        crashed = rc is None or rc < 0 or rc >= 128
        r_crashed = r_rc is None or r_rc < 0 or r_rc >= 128
        expect_ok = (r_crashed if test.expect == CRASH else r_rc == test.expect)
        self.check(expect_ok, test, f"harness expectation: rdiff exited {r_rc}, test was "
                   f"written for {test.expect}", r_cmd)
        if r_crashed:
            if not self.same:
                self.check(not crashed and rc != 0, test, f"rdelta exited {rc} where rdiff "
                           f"aborts; it must fail cleanly (exit 1..127)", cmd)
        elif not self.check(rc == r_rc, test, f"exit code {rc} != rdiff's {r_rc}; stderr: "
                            f"{err[-200:]!r}", cmd):
            return
        if rc == 0 and r_rc == 0:
            self.check(out == r_out, test, f"stdout differs ({len(out)} vs rdiff's "
                       f"{len(r_out)} bytes)", cmd)
            diff = state_diff(r_after, after)
            self.check(not diff, test, f"files differ from rdiff's run: {diff}", cmd)
        if test.text or test.as_rdiff:
            self.check(err == r_err, test, f"stderr text differs: {err!r} vs {r_err!r}", cmd)
            if rc == 0 and test.text:  # help and version: also sane under its own name
                p = subprocess.run([self.rdelta] + test.args, capture_output=True,
                                   stdin=subprocess.DEVNULL)
                self.check(p.returncode == 0 and p.stdout, test, "as rdelta: no text", cmd)
        if test.stats:
            self.check_stats(test, err, r_err, cmd)
        if rc != 0 and not crashed:
            self.check(err.strip() != b"", test, "failed without a message on stderr", cmd)
            if not self.same:
                self.check_clean_failure(test, rc, err, before, after, cmd)

    def check_stats(self, test, err, r_err, cmd):
        patterns = STATS_LINES[test.stats]
        for label, text in (("rdiff", r_err), ("rdelta", err)):
            lines = [ln for ln in text.decode(errors="replace").splitlines()
                     if ln.startswith("librsync: ") and " statistics: " in ln]
            ok = len(lines) == len(patterns) and all(
                re.match(p, ln) for p, ln in zip(patterns, lines))
            self.check(ok, test, f"{label} -s lines do not have rdiff's shape: {lines!r}", cmd)
        # rdelta adds one summary line of its own (elapsed time, throughput, peak
        # memory) after rdiff's lines; under the name rdiff it prints only rdiff's.
        ours = err.decode(errors="replace").splitlines()
        if not self.same:
            extra = [ln for ln in ours if ln.startswith("rdelta: elapsed ")]
            self.check(len(extra) == 1 and re.match(
                r"^rdelta: elapsed \d+\.\d{3} s, \d+\.\d MB/s in, peak memory \d+\.\d MiB, read \d+\.\d MiB, holes skipped \d+\.\d MiB$", extra[0]),
                test, f"rdelta's -s summary line is missing or malformed: {ours!r}", cmd)
            ours = [ln for ln in ours if not ln.startswith("rdelta: elapsed ")]
        self.check(list(map(shape, ours)) ==
                   list(map(shape, r_err.decode(errors="replace").splitlines())), test,
                   f"-s output shape differs from rdiff's: {err!r} vs {r_err!r}", cmd)

    def check_clean_failure(self, test, rc, err, before, after, cmd):
        diff = state_diff(before, after)
        self.check(not diff, test, f"failed run (exit {rc}) modified the directory: {diff}",
                   cmd)
        if rc == USAGE or test.as_rdiff:  # usage text, or rdiff's lines (compared above)
            return
        lines = err.decode(errors="replace").rstrip("\n").split("\n")
        self.check(len(lines) == 1, test, f"error message is {len(lines)} lines: {err!r}", cmd)
        if test.names:
            self.check(any(n in lines[0] for n in test.names), test,
                       f"error message does not name any of {list(test.names)}: {err!r}", cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    ap.add_argument("--keep", help="work in this directory and keep it")
    args = ap.parse_args()
    rdelta = os.path.abspath(shutil.which(args.rdelta) or args.rdelta)
    rdiff = os.path.abspath(shutil.which(args.rdiff) or args.rdiff)
    for p in (rdelta, rdiff):
        if not os.access(p, os.X_OK):
            sys.exit(f"not an executable: {p}")
    root = Path(args.keep or tempfile.mkdtemp(prefix="rdelta-cli-")).resolve()
    if args.keep:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
    (root / "base").mkdir()
    files = base_files(rdiff, root / "base")
    runner = Runner(rdelta, rdiff, root, files)
    if runner.same:
        print("note: --rdelta is rdiff itself; rdelta-only checks (clean failures, one-line "
              "errors naming the file, no abort) are skipped", flush=True)
    tests = build_tests(files)
    for test in tests:
        runner.run(test)
    print(f"{len(tests)} tests run in {root}" + ("" if args.keep or runner.failed
                                                 else " (removed)"))
    if not args.keep and runner.failed == 0:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{runner.passed} passed, {runner.failed} failed")
    return 0 if runner.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
