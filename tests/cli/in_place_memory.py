"""in_place_memory.py - the memory bound of `rdelta patch --in-place`, for
in_place_crash_test.py: a 2 GiB zero LITERAL in 64 KiB of zstd fails fast with
--max-output and applies in bounded memory without; so does a 100 MB delta.

Run as a program (`in_place_memory.py RDELTA ARGS...`) it runs rdelta once and
prints its exit status, peak RSS (KiB) and seconds."""
import os
import subprocess
import sys
import time

from build_kind import sanitized
from sparse_files import MiB, extents, sparse_copy, state, write_at
from tally import check


def zstd_bomb(path, literal_len):
    """A zstd-compressed delta of one LITERAL of `literal_len` zeros, written by hand:
    RLE blocks of 128 KiB cost 4 bytes each, so 2 GiB of zeros take ~64 KiB."""
    def block(kind, size, last=False):
        return (int(last) | kind << 1 | size << 3).to_bytes(3, "little")
    head = bytes([0x72, 0x73, 0x02, 0x36, 0x44]) + literal_len.to_bytes(8, "big")
    with open(path, "wb") as f:
        f.write(bytes([0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38]))  # magic, no content size, window 128 KiB
        f.write(block(0, len(head)) + head)
        left = literal_len
        while left:
            n = min(left, 128 * 1024)
            f.write(block(1, n) + b"\0")
            left -= n
        f.write(block(0, 1, last=True) + b"\0")  # END


def peak_run(tool, *args, stdin=None):
    """Exit status, peak RSS (MiB) and seconds of one rdelta run. Measured by a fresh
    small python (--peak): a child forked from this big process would report this
    process's memory as its own peak."""
    r = subprocess.run([sys.executable, __file__, tool.rdelta, *args], stdin=stdin, capture_output=True, text=True,
                       env=tool.env)
    rc, kib, secs = r.stdout.split()
    return int(rc), int(kib) / 1024, float(secs), r.stderr


def peak_child(rdelta, args):
    t0 = time.monotonic()
    p = subprocess.Popen([rdelta, *args])
    _, status, usage = os.wait4(p.pid, 0)
    print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, f"{time.monotonic() - t0:.3f}")


def memory_limit(rdelta):
    """64 MiB, the bound of issue 10; a sanitizer build's shadow memory, quarantine
    and runtime add their own (about 40 MiB), so it gets 128."""
    return 128 if sanitized(rdelta) else 64


def memory_bounds(tool, work, rng, make_delta):
    """The delta is streamed: a 2 GiB zero LITERAL in 64 KiB of zstd fails fast with
    --max-output, and applies in bounded memory without; so does a 100 MB delta."""
    limit = memory_limit(tool.rdelta)
    bomb = os.path.join(work, "bomb.delta.zst")
    zstd_bomb(bomb, 2 << 30)
    img = os.path.join(work, "bomb.img")
    with open(img, "wb") as f:
        f.write(rng.randbytes(100000))
    before = state(img)
    rc, mib, secs, err = peak_run(tool, "patch", "--in-place", "--max-output=1000", img, bomb)
    print(f"bomb with --max-output=1000: exit {rc}, peak {mib:.1f} MiB, {secs:.2f} s", flush=True)
    check(rc == 102 and mib < limit and secs < 10, f"bomb with --max-output: {rc} {mib:.1f} MiB {secs:.2f} s {err}")
    check(state(img) == before, "bomb with --max-output: image untouched")
    with open(bomb, "rb") as f:
        rc, mib, secs, err = peak_run(tool, "patch", "--in-place", "--max-output=1000", img, "-", stdin=f)
    check(rc == 102 and mib < limit, f"bomb on stdin with --max-output: {rc} {mib:.1f} MiB {err}")
    rc, mib, secs, err = peak_run(tool, "patch", "--in-place", img, bomb)
    print(f"bomb applied: exit {rc}, peak {mib:.1f} MiB, {secs:.2f} s", flush=True)
    check(rc == 0 and mib < limit, f"bomb applied: {rc} {mib:.1f} MiB {err}")
    size, ext = extents(img)
    check(size == 2 << 30 and sum(b - a for a, b in ext) < 8 * MiB, f"bomb applied: 2 GiB of holes ({size}, {ext})")
    os.unlink(img)
    # A 100 MB delta of random data.
    old = os.path.join(work, "big.old")
    with open(old, "wb") as f:
        f.truncate(128 * MiB)
        f.write(rng.randbytes(MiB))
    new = sparse_copy(old, os.path.join(work, "big.new"))
    with open(new, "r+b") as f:
        write_at(f, 10 * MiB, rng.randbytes(100 * MiB))
    delta = os.path.join(work, "big.delta")
    make_delta(tool, old, new, delta)
    img = sparse_copy(old, os.path.join(work, "big.img"))
    rc, mib, secs, err = peak_run(tool, "patch", "--in-place", img, delta)
    print(f"{os.path.getsize(delta) >> 20} MiB delta: exit {rc}, peak {mib:.1f} MiB, {secs:.2f} s", flush=True)
    check(rc == 0 and mib < limit, f"100 MB delta: {rc} {mib:.1f} MiB {err}")
    check(open(img, "rb").read() == open(new, "rb").read(), "100 MB delta: result")


if __name__ == "__main__":
    peak_child(sys.argv[1], sys.argv[2:])
