#!/usr/bin/env python3
"""Command-line checks rdiff does not make, under the name rdelta: options that do
not apply to the command, binary output to a terminal, an unknown RDELTA_FORCE_ISA,
hints for rsync's spellings, a wrong basis caught by the delta's checksum; and that
under the name rdiff none of them happens.
Usage: usability_test.py --rdelta PATH. Prints 'N passed, M failed'."""
import argparse
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import time

from tally import check, summary


def run(prog, *args, env=None):
    return subprocess.run([prog, *args], capture_output=True, text=True, env=env)


def run_on_terminal(prog, *args):
    """Run with standard output on a pseudo-terminal; returns (status, bytes shown)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([prog, *args], stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return p.wait(), shown, p.stderr.read()


def zstd_cases(rdelta):
    """zstd output as the zstd tool makes it: a frame checksum, levels to 22 with
    --ultra, worker threads that do not change the bytes."""
    if not shutil.which("zstd"):
        check(False, "zstd is not installed (.ci/install-deps installs it)")
        return
    with open("big", "wb") as f:
        f.write(os.urandom(3 << 20) + bytes(3 << 20))
    r = run(rdelta, "delta", "--zstd=19", "-j1", "a.sig", "big", "d1.zst")
    r2 = run(rdelta, "delta", "--zstd=19", "-j2", "a.sig", "big", "d2.zst")
    check(r.returncode == 0 and r2.returncode == 0 and open("d1.zst", "rb").read() == open("d2.zst", "rb").read(),
          "zstd output does not depend on the thread count")
    listing = subprocess.run(["zstd", "-lv", "d1.zst"], capture_output=True, text=True).stdout
    check("Check: XXH64" in listing, f"zstd frames carry a content checksum: {listing!r}")
    check(subprocess.run(["zstd", "-tq", "d1.zst"]).returncode == 0, "zstd -t accepts the output")
    plain = subprocess.run([rdelta, "delta", "a.sig", "big", "-"], capture_output=True).stdout
    unpacked = subprocess.run(["zstd", "-dc", "d1.zst"], capture_output=True).stdout
    check(unpacked == plain, "the zstd stream holds the plain delta")
    r = run(rdelta, "signature", "--zstd=22", "a", "s22.zst")
    check(r.returncode == 101 and "--ultra" in r.stderr and not os.path.exists("s22.zst"),
          f"--zstd=22 needs --ultra: {r.stderr!r}")
    r = run(rdelta, "signature", "--zstd=22", "--ultra", "a", "s22.zst")
    check(r.returncode == 0 and subprocess.run(["zstd", "-dc", "s22.zst"], capture_output=True).stdout
          == open("a.sig", "rb").read(), "--ultra --zstd=22 works")
    r = run(rdelta, "signature", "--zstd=23", "--ultra", "a", "s23.zst")
    check(r.returncode == 101, "--zstd=23 is out of range")


def benchmark_cases(rdelta, rdiff):
    import json
    r = run(rdelta, "benchmark", "--json")
    try:
        table = json.loads(r.stdout)
    except ValueError:
        table = {}
    rows = table.get("rows", [])
    levels = {row["level"] for row in rows if row["what"].startswith("strong MD4")}
    check(r.returncode == 0 and "scalar" in levels and table.get("simd_in_use") in levels,
          f"benchmark --json lists each SIMD level up to the one in use: {levels}, {r.stderr!r}")
    check(all(row["mb_per_s"] > 0 for row in rows) and {"signature", "delta", "patch"} <= {row["what"] for row in rows},
          "benchmark measures every kernel and signature, delta and patch")
    r = run(rdelta, "benchmark", env=dict(os.environ, RDELTA_FORCE_ISA="scalar"))
    check(r.returncode == 0 and "SIMD in use: scalar" in r.stdout and " sse2 " not in r.stdout,
          "benchmark stops at the forced level")
    r = run(rdiff, "benchmark")
    check(r.returncode == 101, "rdiff has no benchmark action")


def info_cases(rdelta, rdiff):
    """rdelta info describes and validates signatures and deltas, compressed or not."""
    import json
    with open("b", "wb") as f:
        data = open("a", "rb").read()
        f.write(data[:40000] + os.urandom(5000) + data[40000:])
    subprocess.run([rdelta, "signature", "-b", "1024", "-S", "8", "-H", "md4", "a", "i.sig"], check=True)
    subprocess.run([rdelta, "delta", "--in-place-safe", "i.sig", "b", "i.delta"], check=True)
    subprocess.run([rdelta, "delta", "--zstd", "--no-checksum", "i.sig", "b", "i.delta.zst"], check=True)
    r = run(rdelta, "info", "--json", "i.sig")
    info = json.loads(r.stdout) if r.returncode == 0 else {}
    check(info.get("kind") == "signature" and info.get("block_length") == 1024 and info.get("strong_length") == 8
          and info.get("strong") == "md4" and info.get("blocks") == (100000 + 1023) // 1024,
          f"info on a signature: {r.stdout!r} {r.stderr!r}")
    r = run(rdelta, "info", "--json", "i.delta")
    info = json.loads(r.stdout) if r.returncode == 0 else {}
    check(info.get("kind") == "delta" and info.get("new_file_bytes") == 105000 and info.get("checksum_trailer") is True
          and info.get("delta_bytes") == os.path.getsize("i.delta")
          and info.get("literal_bytes", 0) + info.get("copy_bytes", 0) == 105000, f"info on a delta: {r.stdout!r}")
    r = run(rdelta, "info", "--json", "i.delta.zst")
    info = json.loads(r.stdout) if r.returncode == 0 else {}
    check(info.get("compression") == "zstd" and info.get("checksum_trailer") is False and info.get("new_file_bytes") == 105000,
          f"info on a zstd delta: {r.stdout!r}")
    r = run(rdelta, "info", "i.delta")
    check(r.returncode == 0 and "new file       105000 bytes" in r.stdout and "trailer" in r.stdout, f"info text: {r.stdout!r}")
    r = run(rdelta, "info", "--check", "i.delta")
    check(r.returncode == 0 and r.stdout == "i.delta: valid delta\n", f"info --check: {r.stdout!r}")
    whole = open("i.delta", "rb").read()
    for cut, code in ((3, 103), (len(whole) // 2, 103)):
        with open("cut.delta", "wb") as f:
            f.write(whole[:cut])
        r = run(rdelta, "info", "--check", "cut.delta")
        check(r.returncode == code and "cut.delta" in r.stderr, f"info --check on a delta cut at {cut}: {r.returncode} {r.stderr!r}")
    bad = bytearray(whole)
    bad[4] = 0x60  # a reserved opcode
    with open("bad.delta", "wb") as f:
        f.write(bad)
    r = run(rdelta, "info", "--check", "bad.delta")
    check(r.returncode == 106, f"info --check on a corrupt delta: {r.returncode} {r.stderr!r}")
    # Three COPYs that each declare 2^63 - 1 bytes: the totals stop at 2^64 - 1
    # instead of wrapping to a small, wrong number.
    huge = b"\x54" + bytes(8) + (2**63 - 1).to_bytes(8, "big")
    with open("huge.delta", "wb") as f:
        f.write(b"rs\x026" + huge * 3 + b"\x00")
    r = run(rdelta, "info", "--json", "huge.delta")
    info = json.loads(r.stdout) if r.returncode == 0 else {}
    check(info.get("new_file_bytes") == 2**64 - 1 and info.get("copy_bytes") == 2**64 - 1
          and info.get("basis_bytes_needed") == 2**63 - 1, f"info on declared lengths past 2^64: {r.stdout!r} {r.stderr!r}")
    r = run(rdelta, "info", "--check", "a")
    check(r.returncode == 104 and "not a signature or a delta" in r.stderr, f"info on data: {r.returncode} {r.stderr!r}")
    # --json: a failure is a JSON object too (on stdout, where the description goes).
    for name, code in (("a", 104), ("cut.delta", 103), ("bad.delta", 106), ("no-such-file", 100)):
        r = run(rdelta, "info", "--json", name)
        try:
            info = json.loads(r.stdout)
        except ValueError:
            info = {}
        check(r.returncode == code and info.get("file") == name and info.get("exit_status") == code
              and name in info.get("error", ""), f"info --json on {name}: {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = run(rdiff, "info", "i.sig")
    check(r.returncode == 101, "rdiff has no info action")
    r = run(rdelta, "--check", "signature", "a", "x.sig")
    check(r.returncode == 101 and "--check does not apply" in r.stderr, "--check is for info")


def checksum_cases(rdelta, rdiff):
    """A delta carries the new file's checksum by default, so a patch against the wrong
    basis fails instead of writing a wrong file; --no-checksum and the name rdiff give
    Debian rdiff's bytes, and Debian's rdiff applies a delta with the checksum."""
    data = open("a", "rb").read()
    with open("cb", "wb") as f:
        f.write(data[:30000] + os.urandom(3000) + data[31000:])
    with open("cw", "wb") as f:  # the wrong basis: a tenth of it changed
        f.write(data[:50000] + os.urandom(10000) + data[60000:])
    subprocess.run([rdelta, "signature", "a", "c.sig"], check=True)
    r = run(rdelta, "delta", "c.sig", "cb", "c.delta")
    made = open("c.delta", "rb").read() if r.returncode == 0 else b""
    check(made[-32:-28] == b"rdcm" and int.from_bytes(made[-28:-20], "big") == os.path.getsize("cb"),
          f"delta ends with the checksum trailer by default: {r.returncode} {r.stderr!r}")
    r = run(rdelta, "patch", "cw", "c.delta", "c.out")
    check(r.returncode == 106 and "c.delta" in r.stderr and "wrong basis" in r.stderr and not os.path.exists("c.out"),
          f"patch against the wrong basis fails and names the delta: {r.returncode} {r.stderr!r}")
    p = subprocess.run([rdelta, "patch", "cw", "c.delta", "-"], capture_output=True)
    check(p.returncode == 106 and b"wrong basis" in p.stderr, f"... also to standard output: {p.returncode} {p.stderr!r}")
    r = run(rdelta, "patch", "a", "c.delta", "c.out")
    check(r.returncode == 0 and open("c.out", "rb").read() == open("cb", "rb").read(), f"patch of the right basis: {r.stderr!r}")
    r = run(rdelta, "delta", "--checksum", "--no-checksum", "c.sig", "cb", "c2.delta")
    check(r.returncode == 101 and "contradict" in r.stderr and not os.path.exists("c2.delta"),
          f"--checksum with --no-checksum is refused: {r.returncode} {r.stderr!r}")
    r = run(rdelta, "delta", "--checksum", "c.sig", "cb", "c3.delta")
    check(r.returncode == 0 and open("c3.delta", "rb").read() == made, "--checksum is the default")
    subprocess.run([rdelta, "delta", "--no-checksum", "c.sig", "cb", "plain.delta"], check=True)
    subprocess.run([rdiff, "delta", "c.sig", "cb", "named.delta"], check=True)  # rdelta named rdiff
    plain, named = open("plain.delta", "rb").read(), open("named.delta", "rb").read()
    check(plain == made[:-32] and named == plain, "--no-checksum and the name rdiff: the delta without its trailer")
    debian = shutil.which("rdiff")
    if not debian or os.path.realpath(debian) == os.path.realpath(rdelta):
        check(False, "Debian's rdiff is not installed (.ci/install-deps installs it)")
        return
    subprocess.run([debian, "delta", "c.sig", "cb", "debian.delta"], check=True)
    check(open("debian.delta", "rb").read() == plain, "--no-checksum and the name rdiff give Debian rdiff's bytes")
    r = run(debian, "patch", "a", "c.delta", "debian.out")
    check(r.returncode == 0 and open("debian.out", "rb").read() == open("cb", "rb").read(),
          f"Debian's rdiff applies a delta with the checksum trailer: {r.returncode} {r.stderr!r}")


def reporting_cases(rdelta, rdiff):
    """--json statistics, -q, the summary line that ends a progress line."""
    import json
    r = run(rdelta, "--json", "signature", "a", "j.sig")
    line = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "{}"
    stats = json.loads(line)
    check(r.returncode == 0 and stats.get("command") == "signature" and stats.get("in_bytes") == 100000
          and stats.get("out_bytes") == os.path.getsize("j.sig"), f"signature --json: {r.stderr!r}")
    r = run(rdelta, "--json", "delta", "j.sig", "b", "j.delta")
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    check(r.returncode == 0 and stats.get("command") == "delta" and stats.get("copy_bytes", 0) > 0, f"delta --json: {r.stderr!r}")
    r = run(rdelta, "--json", "patch", "a", "j.delta", "j.out")
    stats = json.loads(r.stderr.strip().splitlines()[-1])
    check(r.returncode == 0 and stats.get("command") == "patch" and stats.get("out_bytes") == os.path.getsize("b"),
          f"patch --json: {r.stderr!r}")
    r = run(rdelta, "--progress", "delta", "j.sig", "b", "p.delta")
    check(r.returncode == 0 and "delta: " in r.stderr and " in " in r.stderr and r.stderr.endswith("/s read)\n"),
          f"a progress line ends with a summary line: {r.stderr!r}")
    # Into a file or pipe (not a terminal): plain lines, no carriage return or escape
    # sequence. Input arriving slowly would redraw a terminal's line.
    p = subprocess.Popen([rdelta, "--progress", "signature", "-", "slow.sig"], stdin=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    for _ in range(3):
        p.stdin.write(bytes(8 << 20))
        p.stdin.flush()
        time.sleep(0.35)
    p.stdin.close()
    err = p.stderr.read()
    check(p.wait() == 0 and b"\r" not in err and b"\x1b" not in err and err.startswith(b"signature: ")
          and err.endswith(b"/s read)\n"), f"--progress into a pipe: plain lines only: {err!r}")
    # patch: the summary line counts what the progress line counts (the delta read).
    size = os.path.getsize("j.delta")
    r = run(rdelta, "--progress", "patch", "a", "j.delta", "pj.out")
    check(r.returncode == 0 and r.stderr.startswith(f"patch (delta): {size / 1024:.1f} KiB in ")
          if size >= 1024 else r.stderr.startswith(f"patch (delta): {size} B in "),
          f"patch's summary counts the delta ({size} bytes): {r.stderr!r}")
    subprocess.run([rdelta, "delta", "--in-place-safe", "j.sig", "b", "ip.delta"], check=True)
    with open("img", "wb") as f:
        f.write(open("a", "rb").read())
    size = os.path.getsize("b")  # the image as the patch leaves it
    r = run(rdelta, "--progress", "patch", "--in-place", "img", "ip.delta")
    want = f"{size / 1024:.1f} KiB" if size >= 1024 else f"{size} B"
    check(r.returncode == 0 and r.stderr.startswith(f"patch --in-place (image): {want} in "),
          f"patch --in-place's summary follows the image ({size} bytes): {r.stderr!r}")
    # A sparse file: rates count what is read, holes apart (summary, -s, --json).
    with open("sparse.img", "wb") as f:
        f.truncate(64 << 20)
        f.seek(8 << 20)
        f.write(os.urandom(1 << 20))
    r = run(rdelta, "--progress", "-s", "--json", "signature", "sparse.img", "sparse.sig")
    stats = json.loads(r.stderr.strip().splitlines()[-1]) if r.returncode == 0 else {}
    check(stats.get("holes_skipped", 0) >= 62 << 20 and stats.get("read_bytes", 1 << 30) < 16 << 20,
          f"signature --json: the holes skipped apart from the bytes read: {stats}")
    check("MiB of holes skipped)" in r.stderr and ", holes skipped 6" in r.stderr,
          f"the progress summary and -s name the holes skipped: {r.stderr!r}")
    r = run(rdelta, "--json", "delta", "sparse.sig", "sparse.img", "sparse.delta")
    stats = json.loads(r.stderr.strip().splitlines()[-1]) if r.returncode == 0 else {}
    check(stats.get("holes_skipped", 0) >= 62 << 20, f"delta --json: the holes skipped: {stats}")
    r = run(rdelta, "--progress", "-q", "delta", "j.sig", "b", "q.delta")
    check(r.returncode == 0 and r.stderr == "", f"-q silences progress and summary: {r.stderr!r}")
    subprocess.run([rdelta, "delta", "--in-place-safe", "--no-checksum", "j.sig", "b", "nock.delta"], check=True)
    for quiet in (False, True):
        with open("img", "wb") as f:
            f.write(open("a", "rb").read())
        r = run(rdelta, *(["-q"] if quiet else []), "patch", "--in-place", "img", "nock.delta")
        warned = "cannot be verified" in r.stderr
        check(r.returncode == 0 and warned != quiet, f"in-place warning {'hidden by -q' if quiet else 'shown'}: {r.stderr!r}")
    r = run(rdiff, "-q", "signature", "a", "rq.sig")
    check(r.returncode == 101 and not os.path.exists("rq.sig"), "rdiff has no -q")
    subprocess.run([rdelta, "delta", "--in-place-safe", "j.sig", "b", "ck.delta"], check=True)
    for quiet in (False, True):
        q = ["-q"] if quiet else []
        r = run(rdelta, *q, "patch", "-f", "--verify", "a", "ck.delta", "v.out")
        check(r.returncode == 0 and ("verified" in r.stderr) != quiet,
              f"patch --verify: the verified line {'hidden by -q' if quiet else 'shown'}: {r.stderr!r}")
        with open("img", "wb") as f:
            f.write(open("a", "rb").read())
        r = run(rdelta, *q, "patch", "--in-place", "--verify", "img", "ck.delta")
        check(r.returncode == 0 and ("verified" in r.stderr) != quiet,
              f"patch --in-place --verify: the verified line {'hidden by -q' if quiet else 'shown'}: {r.stderr!r}")
    # A delta or a text file given as the signature: called what it is, with rdiff's code.
    with open("text.txt", "w") as f:
        f.write("hello, this is no signature\n")
    for given, says in (("ck.delta", "not a signature (it is a delta)"), ("text.txt", "not a signature")):
        r = run(rdelta, "delta", given, "b", "never.delta")
        ref = run(rdiff, "delta", given, "b", "never-rdiff.delta")
        check(r.returncode == ref.returncode and says in r.stderr and not os.path.exists("never.delta"),
              f"{given} as the signature: exit {r.returncode} (rdiff {ref.returncode}), {r.stderr!r}")
    os.makedirs("a-folder", exist_ok=True)
    r = run(rdelta, "signature", "a", "a-folder")
    check(r.returncode == 100 and "Is a directory" in r.stderr and "--force" not in r.stderr,
          f"an output that is a folder says so, not 'use --force': {r.stderr!r}")
    # ...for delta and patch too, with or without -f, and for a folder given as an input.
    for args in (["delta", "j.sig", "b", "a-folder"], ["-f", "delta", "j.sig", "b", "a-folder"],
                 ["patch", "a", "j.delta", "a-folder"], ["-f", "patch", "a", "j.delta", "a-folder"],
                 ["signature", "a-folder", "never.sig"], ["delta", "a-folder", "b", "never.delta"],
                 ["delta", "j.sig", "a-folder", "never.delta"], ["patch", "a-folder", "j.delta", "never.out"],
                 ["patch", "a", "a-folder", "never.out"], ["patch", "--in-place", "a-folder", "j.delta"]):
        r = run(rdelta, *args)
        check(r.returncode == 100 and r.stderr.startswith("rdelta: a-folder: ") and "Is a directory" in r.stderr
              and r.stderr.count("\n") == 1 and not os.path.exists(args[-1] if "never" in args[-1] else "never"),
              f"{' '.join(args)}: a folder is called one: {r.returncode} {r.stderr!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    rdelta = os.path.abspath(ap.parse_args().rdelta)
    work = tempfile.mkdtemp(prefix="rdelta-usab-")
    os.chdir(work)
    rdiff = os.path.join(work, "rdiff")
    os.symlink(rdelta, rdiff)
    with open("a", "wb") as f:
        f.write(os.urandom(100000))
    subprocess.run([rdelta, "signature", "a", "a.sig"], check=True)

    for args, option in ((["delta", "--verify", "a.sig", "a", "d1"], "--verify"),
                         (["signature", "--in-place-safe", "a", "s1"], "--in-place-safe"),
                         (["patch", "--checksum", "a", "d", "o"], "--checksum"),
                         (["signature", "--max-output=10", "a", "s2"], "--max-output"),
                         (["delta", "--no-sparse", "a.sig", "a", "d2"], "--no-sparse"),
                         (["delta", "--in-place", "a.sig", "a", "d3"], "--in-place")):
        r = run(rdelta, *args)
        check(r.returncode == 101 and f"{option} does not apply to {args[0]}" in r.stderr
              and not os.path.exists(args[-1]), f"{' '.join(args)}: exit {r.returncode}, {r.stderr!r}")

    # The rest of the table's drift: info --verify and recover --max-output meant nothing.
    for args, option, command in ((["info", "--verify", "a.sig"], "--verify", "info"),
                                  (["recover", "--max-output=5", "a"], "--max-output", "recover"),
                                  (["-j2", "patch", "a", "d", "o4"], "--threads", "patch")):
        r = run(rdelta, *args)
        check(r.returncode == 101 and f"{option} does not apply to {command} (only to " in r.stderr
              and r.stdout == "", f"{' '.join(args)}: exit {r.returncode}, {r.stderr!r}")
    # rdiff's options stay accepted by each of rdiff's commands under the name rdelta.
    rdiff_opts = ["-s", "-H", "md4", "-R", "rollsum", "-b", "512", "-S", "8", "-I", "4096", "-O", "4096"]
    subprocess.run([rdelta, *rdiff_opts, "signature", "a", "o.sig"], capture_output=True, check=True)
    subprocess.run([rdelta, *rdiff_opts, "delta", "o.sig", "a", "o.delta"], capture_output=True, check=True)
    r = run(rdelta, *rdiff_opts, "patch", "a", "o.delta", "o.out")
    check(r.returncode == 0 and open("o.out", "rb").read() == open("a", "rb").read(),
          f"rdiff's options with patch under the name rdelta: {r.returncode} {r.stderr!r}")

    # `rdelta help` lists every command; `rdelta help COMMAND` that command's options.
    r = run(rdelta, "help")
    commands = r.stdout.split("\nCommands", 1)[-1].split("\n\n", 1)[0]
    check(r.returncode == 0 and all(f"\n  {c} " in commands for c in
                                    ("signature", "delta", "patch", "recover", "info", "benchmark")),
          f"rdelta help lists every command: {r.returncode} {r.stdout[:600]!r}")
    r = run(rdelta, "help", "patch")
    check(r.returncode == 0 and "--verify" in r.stdout and "--in-place " in r.stdout and "--checksum" not in r.stdout
          and "--check " not in r.stdout, f"rdelta help patch: {r.stdout!r}")
    r = run(rdelta, "help", "nosuch")
    check(r.returncode == 101 and "nosuch" in r.stderr, f"rdelta help nosuch: {r.returncode} {r.stderr!r}")
    r = run(rdiff, "help")
    check(r.returncode == 101 and r.stderr.startswith("rdiff: You must specify an action"), f"rdiff help: {r.stderr!r}")
    # `rdelta COMMAND --help` is `rdelta help COMMAND`; rdiff prints its whole help.
    for command in ("signature", "delta", "patch", "recover", "verify", "push", "info", "benchmark"):
        r = run(rdelta, command, "--help")
        want = run(rdelta, "help", command)
        check(r.returncode == 0 and r.stdout == want.stdout and r.stdout != run(rdelta, "--help").stdout,
              f"rdelta {command} --help prints that command's help: {r.stdout[:200]!r}")
    r = run(rdiff, "delta", "--help")
    check(r.returncode == 0 and r.stdout == run(rdiff, "--help").stdout, "rdiff delta --help: rdiff's whole help")
    # An unknown command, or none, lists every command (rdiff's three under its name).
    every = ("signature", "delta", "patch", "recover", "verify", "push", "info", "benchmark", "help")
    for args in (["frobnicate", "a"], []):
        r = run(rdelta, *args)
        check(r.returncode == 101 and all(c in r.stderr for c in every) and r.stderr.count("\n") == 1,
              f"rdelta {' '.join(args)}: every command, one line: {r.stderr!r}")
    r = run(rdiff, "frobnicate", "a")
    check(r.returncode == 101 and r.stderr.startswith("rdiff: You must specify an action: `signature', `delta', or "
                                                      "`patch'."), f"rdiff frobnicate: rdiff's words: {r.stderr!r}")
    # Under the name rdiff, --version is rdiff's text; a person at a terminal is told who answers.
    master, slave = pty.openpty()
    p = subprocess.Popen([rdiff, "--version"], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    out = p.communicate()[0]
    told = b""
    try:
        told = os.read(master, 4096)
    except OSError:
        pass
    os.close(master)
    check(out.startswith(b"rdiff (librsync 2.3.2)\n") and b"this is rdelta" in told,
          f"rdiff --version on a terminal names rdelta: {told!r}")
    # delta's arguments swapped: the first is not a signature, and the usage says so.
    for bogus in ("a", "zeros"):
        if bogus == "zeros":
            with open("zeros", "wb") as f:
                f.write(bytes(100))
        r = run(rdelta, "delta", bogus, "a.sig", "swapped.delta")
        check(r.returncode == 106 and "the first argument must be a signature" in r.stderr
              and "delta SIGNATURE [NEWFILE [DELTA]]" in r.stderr and r.stderr.count("\n") == 1
              and not os.path.exists("swapped.delta"), f"delta {bogus} a.sig: {r.returncode} {r.stderr!r}")

    # A sum size the format cannot hold: the option as given and the range.
    for args, says in ((["-H", "md4", "-S", "17"], "--sum-size 17 is out of range for MD4 sums (1 to 16; 0 for 16, "),
                       (["-S", "-5"], "--sum-size -5 is out of range for BLAKE2 sums (1 to 32; 0 for 32, ")):
        r = run(rdelta, "signature", *args, "a", "s.sig")
        check(r.returncode == 108 and r.stderr.startswith("rdelta: " + says) and r.stderr.count("\n") == 1
              and not os.path.exists("s.sig"), f"signature {' '.join(args)}: {r.returncode} {r.stderr!r}")

    # A compression level left apart from its option: say to attach it.
    for args, attached in ((["-z", "9", "delta", "a.sig", "a", "z.delta"], "-z9"),
                           (["delta", "--zstd", "19", "a.sig", "a", "z.delta"], "--zstd=19")):
        r = run(rdelta, *args)
        check(r.returncode == 101 and "attach the level" in r.stderr and f": {attached} " in r.stderr and not os.path.exists("z.delta"), f"{' '.join(args)}: {r.stderr!r}")

    r = run(rdelta, "--inplace", "patch", "a", "d")
    check(r.returncode == 101 and "did you mean --in-place?" in r.stderr, f"--inplace hint: {r.stderr!r}")
    r = run(rdiff, "--inplace", "patch", "a", "d")
    check(r.returncode == 101 and "did you mean" not in r.stderr, f"no hint under the name rdiff: {r.stderr!r}")

    env = dict(os.environ, RDELTA_FORCE_ISA="avx3")
    r = run(rdelta, "signature", "a", "s3", env=env)
    check(r.returncode == 101 and "RDELTA_FORCE_ISA='avx3'" in r.stderr and not os.path.exists("s3"),
          f"unknown RDELTA_FORCE_ISA: exit {r.returncode}, {r.stderr!r}")
    r = run(rdelta, "-V", env=env)
    check(r.returncode == 101, "rdelta -V with an unknown RDELTA_FORCE_ISA fails")
    r = run(rdelta, "-V", env=dict(os.environ, RDELTA_FORCE_ISA="sse2"))
    check(r.returncode == 0 and "SIMD in use: sse2" in r.stdout, f"-V shows the capped level: {r.stdout!r}")

    status, shown, err = run_on_terminal(rdelta, "signature", "a")
    check(status == 101 and shown == b"" and b"standard output is a terminal" in err,
          f"signature to a terminal is refused: {status}, {len(shown)} bytes shown, {err!r}")
    status, shown, err = run_on_terminal(rdelta, "delta", "a.sig", "a", "-")
    check(status == 101 and shown == b"", f"delta to a terminal is refused: {status}")
    status, shown, err = run_on_terminal(rdelta, "signature", "-f", "a")
    check(status == 0 and shown.startswith(b"rs\x01"), f"-f writes to the terminal anyway: {status}")
    status, shown, err = run_on_terminal(rdiff, "signature", "a")
    check(status == 0 and shown.startswith(b"rs\x01"), f"rdiff writes to the terminal, as Debian's does: {status}")

    zstd_cases(rdelta)
    benchmark_cases(rdelta, rdiff)
    info_cases(rdelta, rdiff)
    checksum_cases(rdelta, rdiff)
    reporting_cases(rdelta, rdiff)
    os.chdir("/")
    shutil.rmtree(work)
    sys.exit(summary())


if __name__ == "__main__":
    main()
