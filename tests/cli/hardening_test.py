#!/usr/bin/env python3
"""Failure paths: an output limit, a full disk, a signal in the middle of a run, a
signature or delta pipe that closes early, and hostile length fields. Each must end
with the documented status, no crash and no output file left behind.
Usage: hardening_test.py --rdelta PATH. Prints 'N passed, M failed'."""
import argparse
import filecmp
import hashlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from tally import check, summary


def leftovers(folder, keep):
    return sorted(set(os.listdir(folder)) - set(keep))

RK_MULT = 0x08104225


def rabinkarp_windows(data, block, count):
    """RabinKarp weak sums of the windows data[i:i+block] for i < count."""
    h = 1
    for b in data[:block]:
        h = (h * RK_MULT + b) & 0xFFFFFFFF
    top = pow(RK_MULT, block, 1 << 32)
    sums = [h]
    for i in range(count - 1):
        h = (h * RK_MULT + data[i + block] - top * (data[i] + RK_MULT - 1)) & 0xFFFFFFFF
        sums.append(h)
    return sums


def crafted_signature(weak_sums, block):
    out = bytes.fromhex("72730147") + block.to_bytes(4, "big") + (32).to_bytes(4, "big")
    for w in weak_sums:
        out += w.to_bytes(4, "big") + bytes(32)
    return out


def child_cpu_seconds(run):
    """CPU time (user + system) of the processes `run` starts and waits for, and its result."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = run()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), result


def check_work_budget(rdelta):
    block = 1 << 20
    data = os.urandom(2 << 20)
    with open("attacked", "wb") as f:
        f.write(data)
    with open("crafted.sig", "wb") as f:
        f.write(crafted_signature(rabinkarp_windows(data, block, 2048), block))
    stopped_cpu, r = child_cpu_seconds(lambda: subprocess.run([rdelta, "delta", "crafted.sig", "attacked", "out"],
                                                              capture_output=True))
    check(r.returncode == 102 and not os.path.exists("out") and b"work budget" in r.stderr,
          f"crafted signature: exit {r.returncode}, {r.stderr!r}")
    # A budget large enough lets it finish (all literal), and 0 turns it off.
    full_cpu, r = child_cpu_seconds(lambda: subprocess.run(
        [rdelta, "--max-strong-work=2000", "delta", "crafted.sig", "attacked", "out"], capture_output=True))
    check(r.returncode == 0 and os.path.exists("out"), f"--max-strong-work=2000: exit {r.returncode}")
    # The default budget (256 x 2 MiB + 80 MiB) is under a third of the 2 GiB the finished run
    # hashes: the stopped run must have stopped early, whatever this machine's speed.
    check(stopped_cpu < 0.6 * full_cpu,
          f"the budget stopped the work early: {stopped_cpu:.2f} s of CPU against {full_cpu:.2f} s to finish")
    if os.path.exists("out"):
        os.remove("out")
    # The 48-byte signature (1 MiB blocks, the weak sum of 'A' x 1 MiB, a wrong strong
    # sum) against 4 MiB of 'A': every window is equal, so one is hashed; all literal.
    with open("runA", "wb") as f:
        f.write(b"A" * (4 << 20))
    with open("runA.sig", "wb") as f:
        f.write(crafted_signature(rabinkarp_windows(b"A" * block, block, 1), block))
    # Hashing each of its 3 Mi windows would exceed the default budget (256 x 4 MiB + 80 MiB)
    # a thousand times over and exit 102, so success shows the windows were not re-hashed.
    r = subprocess.run([rdelta, "delta", "runA.sig", "runA", "out"], capture_output=True)
    check(r.returncode == 0, f"a run against a crafted signature: exit {r.returncode}, {r.stderr!r}")
    r = subprocess.run([rdelta, "patch", "basis", "out", "runA.out"], capture_output=True)
    check(r.returncode == 0 and open("runA.out", "rb").read() == b"A" * (4 << 20), "run delta round trip")
    for name in ("runA", "runA.sig", "runA.out", "out"):
        if os.path.exists(name):
            os.remove(name)
    # Under the name rdiff the option does not exist.
    os.symlink(rdelta, "rdiff")
    r = subprocess.run(["./rdiff", "--max-strong-work=1", "delta", "crafted.sig", "attacked", "out"],
                       capture_output=True)
    check(r.returncode == 101, f"rdiff --max-strong-work: exit {r.returncode}")
    for name in ("rdiff", "attacked", "crafted.sig", "out"):
        if os.path.lexists(name):
            os.remove(name)


def check_copy_past_any_basis(rdelta):
    """COPYs whose end passes 2^63 - 1, the largest file offset: 103 ("past the end of
    the basis", naming the delta) out of place and in place, and info --check refuses
    them. Positions of 2^63 and more are negative to librsync: 106, as rdiff says."""
    with open("small", "wb") as f:
        f.write(os.urandom(4096))
    magic = bytes.fromhex("72730236")
    cases = {
        "pos-max-len-10": (magic + b"\x51" + (2**63 - 1).to_bytes(8, "big") + b"\x0a" + b"\x00", 103),
        "pos-max-2-len-max": (magic + b"\x54" + (2**63 - 2).to_bytes(8, "big") + (2**63 - 1).to_bytes(8, "big")
                              + b"\x00", 103),
        "after-a-copy": (magic + b"\x45\x00\x10" + b"\x51" + (2**63 - 5).to_bytes(8, "big") + b"\x09" + b"\x00", 103),
        "pos-2^63": (magic + b"\x51" + (2**63).to_bytes(8, "big") + b"\x01" + b"\x00", 106),
        "pos-2^64-1": (magic + b"\x51" + (2**64 - 1).to_bytes(8, "big") + b"\x0a" + b"\x00", 106),
    }
    for name, (delta, want) in cases.items():
        with open("crafted.delta", "wb") as f:
            f.write(delta)
        r = subprocess.run([rdelta, "patch", "small", "crafted.delta", "out"], capture_output=True)
        check(r.returncode == want and not os.path.exists("out") and r.stderr.count(b"\n") == 1
              and b"crafted.delta: COPY at offset" in r.stderr,
              f"{name}: patch: exit {r.returncode} (want {want}), {r.stderr!r}")
        with open("image", "wb") as f:
            f.write(open("small", "rb").read())
        r = subprocess.run([rdelta, "patch", "--in-place", "image", "crafted.delta"], capture_output=True)
        check(r.returncode == want and open("image", "rb").read() == open("small", "rb").read()
              and b"crafted.delta: COPY at offset" in r.stderr,
              f"{name}: patch --in-place: exit {r.returncode} (want {want}), {r.stderr!r}")
        r = subprocess.run([rdelta, "info", "--check", "crafted.delta"], capture_output=True)
        check(r.returncode == want and b"valid delta" not in r.stdout and b"crafted.delta: COPY at offset" in r.stderr,
              f"{name}: info --check: exit {r.returncode} (want {want}), {r.stdout!r} {r.stderr!r}")
    for name in ("small", "image", "crafted.delta", "out"):
        if os.path.exists(name):
            os.remove(name)


def check_sparse_input_huge_blocks(rdelta):
    """A delta of a sparse file with a signature of 16 MiB blocks holds about two
    blocks and a read chunk, as for dense data: the holes are encoded without being
    read, and no block-long buffer of zeros or queue of their output is kept (peak
    RSS 108 MiB before, 40 MiB after). The delta equals the one of the same bytes
    read from a pipe, which scans every zero. Nothing here holds more than 1 MiB:
    a child's peak RSS counts this process's memory when it forks."""
    block = 16 << 20
    zeros = hashlib.blake2b(digest_size=32)
    for _ in range(block >> 20):
        zeros.update(bytes(1 << 20))
    zero_block = pow(RK_MULT, block, 1 << 32).to_bytes(4, "big") + zeros.digest()
    with open("huge-blocks.sig", "wb") as f:  # a block of zeros between two that match nothing
        f.write(bytes.fromhex("72730147") + block.to_bytes(4, "big") + (32).to_bytes(4, "big")
                + os.urandom(36) + zero_block + os.urandom(36))
    with open("sparse", "wb") as f:  # 1 GiB: holes around 4 MiB pieces of data, off block boundaries
        f.truncate(1 << 30)
        for i in range(4):
            f.seek((i * 250 + 37) << 20)
            for _ in range(4):
                f.write(os.urandom(1 << 20))
    # meson's MALLOC_PERTURB_ fills every allocation, touching pages the program never uses.
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_PERTURB_"}
    p = subprocess.Popen([rdelta, "delta", "huge-blocks.sig", "sparse", "sparse.delta"], stderr=subprocess.PIPE, env=env)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    # Sanitizers add shadow memory and keep freed blocks for a while.
    bound = (160 if "ASAN_OPTIONS" in os.environ else 80) * 1024
    check(os.waitstatus_to_exitcode(status) == 0 and usage.ru_maxrss < bound,
          f"sparse input, 16 MiB blocks: status {status}, peak RSS {usage.ru_maxrss} KiB (bound {bound}), {err!r}")
    with open("sparse", "rb") as f:
        r = subprocess.run([rdelta, "delta", "huge-blocks.sig", "-", "streamed.delta"], stdin=f, capture_output=True)
    check(r.returncode == 0 and os.path.exists("sparse.delta")
          and filecmp.cmp("sparse.delta", "streamed.delta", shallow=False),
          f"sparse input, 16 MiB blocks: the delta equals the streamed one (exit {r.returncode}, {r.stderr!r})")
    for name in ("huge-blocks.sig", "sparse", "sparse.delta", "streamed.delta"):
        if os.path.exists(name):
            os.remove(name)


def check_many_short_copies(rdelta):
    """A delta of 200000 COPYs of 2 bytes that continue one another (from 4096 bytes
    after their destination, so it applies in place too): the output equals rdiff's,
    and the statistics count every command, out of place and in place. Needs rdiff."""
    if not shutil.which("rdiff"):
        print("note: no rdiff here; the many-short-COPYs case was not run")
        return
    with open("image", "wb") as f:
        f.write(os.urandom(1 << 20))
    n = 200000
    with open("short.delta", "wb") as f:
        f.write(bytes.fromhex("72730236") + b"".join(b"\x4d" + (4096 + 2 * i).to_bytes(4, "big") + b"\x02"
                                                   for i in range(n)) + b"\x00")
    want = f"copy[{n} cmds, {2 * n} bytes".encode()
    r = subprocess.run(["rdiff", "-s", "patch", "image", "short.delta", "rdiff.out"], capture_output=True)
    check(r.returncode == 0 and want in r.stderr, f"rdiff on short COPYs: exit {r.returncode}, {r.stderr!r}")
    r = subprocess.run([rdelta, "-s", "patch", "image", "short.delta", "out"], capture_output=True)
    check(r.returncode == 0 and open("out", "rb").read() == open("rdiff.out", "rb").read(),
          f"short COPYs: patch: exit {r.returncode}, output equal to rdiff's")
    check(want + b", 1200000 cmdbytes" in r.stderr, f"short COPYs: patch statistics {r.stderr!r}")
    r = subprocess.run([rdelta, "-s", "patch", "--in-place", "image", "short.delta"], capture_output=True)
    check(r.returncode == 0 and open("image", "rb").read() == open("rdiff.out", "rb").read(),
          f"short COPYs: patch --in-place: exit {r.returncode}, {r.stderr!r}")
    check(want in r.stderr, f"short COPYs: in-place statistics {r.stderr!r}")
    for name in ("image", "short.delta", "rdiff.out", "out"):
        if os.path.exists(name):
            os.remove(name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    rdelta = os.path.abspath(ap.parse_args().rdelta)
    work = tempfile.mkdtemp(prefix="rdelta-hard-")
    os.chdir(work)
    with open("basis", "wb") as f:
        f.write(os.urandom(4 << 20))
    subprocess.run([rdelta, "signature", "basis", "basis.sig"], check=True)
    with open("new", "wb") as f:
        f.write(open("basis", "rb").read()[: 3 << 20] + os.urandom(1 << 20))
    subprocess.run([rdelta, "delta", "basis.sig", "new", "new.delta"], check=True)
    inputs = ["basis", "basis.sig", "new", "new.delta"]

    # --max-output bounds what a delta can make us write.
    r = subprocess.run([rdelta, "--max-output", "1000000", "patch", "basis", "new.delta", "out"], capture_output=True)
    check(r.returncode == 102 and not os.path.exists("out"), f"--max-output: exit {r.returncode}")
    r = subprocess.run([rdelta, "--max-output", str(4 << 20), "patch", "basis", "new.delta", "out"], capture_output=True)
    check(r.returncode == 0 and open("out", "rb").read() == open("new", "rb").read(), "--max-output at the size")
    os.remove("out")

    # A delta of 2^62 literal bytes and a signature claiming huge lengths allocate nothing.
    with open("huge.delta", "wb") as f:
        f.write(bytes.fromhex("72730236 44 4000000000000000") + b"abc")
    r = subprocess.run([rdelta, "patch", "basis", "huge.delta", "out"], capture_output=True)
    check(r.returncode == 103 and not os.path.exists("out"), f"2^62 literal: exit {r.returncode}")
    with open("huge.sig", "wb") as f:
        f.write(bytes.fromhex("72730147 7fffffff 00000020") + os.urandom(36 * 3))
    r = subprocess.run([rdelta, "delta", "huge.sig", "new", "out"], capture_output=True)
    check(r.returncode == 0 and os.path.exists("out"), f"signature with 2^31-1 blocks: exit {r.returncode}")
    os.remove("out")

    # A work budget against crafted signatures: records whose weak sums are those of
    # the new data's windows, with wrong strong sums, make every window cost a block
    # of hashing (minutes in rdiff). 102 quickly, and no output.
    check_work_budget(rdelta)

    check_copy_past_any_basis(rdelta)
    check_many_short_copies(rdelta)

    check_sparse_input_huge_blocks(rdelta)

    # Memory stays bounded whatever the output size: an all-literal delta of 128 MiB
    # must not hold its output (peak RSS well under the file size).
    with open("unrelated", "wb") as f:
        for _ in range(128):
            f.write(os.urandom(1 << 20))
    p = subprocess.Popen([rdelta, "delta", "basis.sig", "unrelated", "out"], stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    check(os.waitstatus_to_exitcode(status) == 0 and usage.ru_maxrss < 100 * 1024,
          f"all-literal delta: status {status}, peak RSS {usage.ru_maxrss} KiB")
    os.remove("out")
    os.remove("unrelated")

    # A pipe that closes early: 103, as for a truncated file.
    for name, cmd in (("signature", [rdelta, "delta", "-", "new", "out"]),
                      ("delta", [rdelta, "patch", "basis", "-", "out"])):
        data = open("basis.sig" if name == "signature" else "new.delta", "rb").read()
        r = subprocess.run(cmd, input=data[: len(data) // 2 + 3], capture_output=True)
        check(r.returncode == 103 and not os.path.exists("out"), f"{name} pipe closed early: exit {r.returncode}")

    # SIGTERM and SIGINT in the middle of a run remove the temporary output.
    with open("big", "wb") as f:
        for _ in range(256):
            f.write(os.urandom(1 << 20))
    for sig in (signal.SIGTERM, signal.SIGINT):
        # The default action, whatever this test inherited (a background job ignores SIGINT).
        p = subprocess.Popen([rdelta, "-j1", "delta", "basis.sig", "-", "out"], stdin=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, preexec_fn=lambda sig=sig: signal.signal(sig, signal.SIG_DFL))
        p.stdin.write(open("big", "rb").read(64 << 20))
        p.stdin.flush()
        time.sleep(0.3)
        p.send_signal(sig)
        try:
            p.stdin.close()
        except BrokenPipeError:
            pass
        p.wait(timeout=30)
        check(p.returncode == -sig, f"{sig.name}: status {p.returncode}")
        check(leftovers(work, inputs + ["big", "huge.delta", "huge.sig"]) == [],
              f"{sig.name} left {leftovers(work, inputs + ['big', 'huge.delta', 'huge.sig'])}")

    # A full file system: status 100 and nothing left (needs a small tmpfs, as root).
    small = os.path.join(work, "small")
    os.mkdir(small)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", small], capture_output=True).returncode == 0:
        try:
            r = subprocess.run([rdelta, "patch", "basis", "new.delta", os.path.join(small, "out")], capture_output=True)
            check(r.returncode == 100 and os.listdir(small) == [], f"ENOSPC: exit {r.returncode}, left {os.listdir(small)}")
            check(b"No space left" in r.stderr and r.stderr.count(b"\n") == 1, f"ENOSPC message: {r.stderr!r}")
        finally:
            subprocess.run(["umount", small])
    else:
        print("note: cannot mount a tmpfs here; the full-disk case was not run")
    subprocess.run(["rm", "-rf", work])
    return summary()


if __name__ == "__main__":
    sys.exit(main())
