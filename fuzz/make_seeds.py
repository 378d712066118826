#!/usr/bin/env python3
"""Generate the seed corpora in fuzz/corpus/<target>/ (checked in).

Signatures and deltas come from the system rdiff (librsync 2.3.2, /usr/bin/rdiff),
so the fuzzers start from real librsync files in all four signature formats.
Each seed is "payload || parameter trailer": the trailer encodes the parameters
each target reads from the end of its input, exactly as fuzz_data_producer.hpp
decodes them, in the order the target consumes them.

Only files named seed-* are written (stale ones removed); other files in the
corpus directories (e.g. regress-* inputs from fixed findings) are left alone.
Output is deterministic. Usage: fuzz/make_seeds.py [--rdiff PATH]
"""

import argparse
import os
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"

# sig magics in the order the targets' `formats` arrays list them
FORMATS = [  # (name, rdiff -H, rdiff -R, magic, full strong length)
    ("rs-md4", "md4", "rollsum", 0x72730136, 16),
    ("rs-blake2", "blake2", "rollsum", 0x72730137, 32),
    ("rk-md4", "md4", "rabinkarp", 0x72730146, 16),
    ("rk-blake2", "blake2", "rabinkarp", 0x72730147, 32),
]
DELTA_MAGIC = b"rs\x026"
CHUNK_TABLE = [0, 1, 1, 2, 3, 7, 15, 16, 100, 511, 4096, 65536]  # fuzz_common.hpp
BIG_TABLE = [1000, 4096, 65536, 100000]  # chunk_schedule::around


def one_in(data, n, salt=0):
    """fuzz_common.hpp one_in: the 1-in-n draw on a whole input (FNV-1a)."""
    h = 0xCBF29CE484222325 ^ salt
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return (h ^ (h >> 32)) % n == 0


def drawn(make, n):
    """make(seed) for the first seed from 1 whose input wins the one_in(n) draw."""
    for seed in range(1, 1 << 20):
        data = make(seed)
        if one_in(data, n):
            return data
    raise AssertionError("no seed wins the draw")


class Params:
    """Parameters in the order a target consumes them (fuzz_data_producer.hpp)."""

    def __init__(self):
        self.consumed = bytearray()

    def integral(self, value, lo, hi):
        assert lo <= value <= hi, (value, lo, hi)
        nbytes, left = 0, hi - lo
        while left:
            nbytes, left = nbytes + 1, left >> 8
        # The first byte consumed (the input's last byte) is the most significant.
        self.consumed += (value - lo).to_bytes(nbytes, "big") if nbytes else b""
        return self

    def boolean(self, value):
        return self.integral(1 if value else 0, 0, 255)

    def pick(self, index, count):
        return self.integral(index, 0, count - 1)

    def schedule(self, sizes):
        """chunk_schedule::from: 1-4 sizes, each from the table or 1..300."""
        assert 1 <= len(sizes) <= 4
        self.integral(len(sizes), 1, 4)
        for s in sizes:
            if s in CHUNK_TABLE:
                self.boolean(True).pick(CHUNK_TABLE.index(s), len(CHUNK_TABLE))
            else:
                self.boolean(False).integral(s, 1, 300)
        return self

    def trailer(self):
        return bytes(reversed(self.consumed))


class Rdiff:
    def __init__(self, exe, tmp):
        self.exe, self.tmp, self.n = exe, Path(tmp), 0

    def _file(self, data):
        self.n += 1
        path = self.tmp / f"f{self.n}"
        path.write_bytes(data)
        return path

    def signature(self, basis, fmt, block_len, strong_len=0):
        _, hash_alg, roll_alg, _, _ = fmt
        out = self.tmp / f"s{self.n}.sig"
        subprocess.run([self.exe, "-f", "-H", hash_alg, "-R", roll_alg, "-b", str(block_len),
                        "-S", str(strong_len), "signature", self._file(basis), out],
                       check=True, stderr=subprocess.DEVNULL)
        return out.read_bytes()

    def delta(self, sig, new):
        out = self.tmp / f"d{self.n}.delta"
        subprocess.run([self.exe, "-f", "delta", self._file(sig), self._file(new), out], check=True)
        return out.read_bytes()

    def patch(self, basis, delta):
        out = self.tmp / f"p{self.n}.out"
        subprocess.run([self.exe, "-f", "patch", self._file(basis), self._file(delta), out], check=True)
        return out.read_bytes()


def text_like(rng, n):
    words = [b"delta", b"basis", b"block", b"rsync", b"signature", b"rolling", b"sum", b"\n", b"  "]
    out = bytearray()
    while len(out) < n:
        out += rng.choice(words) + (b" " if rng.random() < 0.8 else b"\n")
    return bytes(out[:n])


def edited(rng, data, edits=4):
    """data with a few insertions, deletions and changed bytes."""
    out = bytearray(data)
    for _ in range(edits):
        if not out:
            break
        at = rng.randrange(len(out))
        op = rng.randrange(3)
        if op == 0:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        elif op == 1:
            del out[at:at + rng.randrange(1, 40)]
        else:
            out[at] ^= 0x55
    return bytes(out)


def be32(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


# --- delta command encoding (librsync format), for hand-made deltas -------------
def width(v):
    return 1 if v <= 0xFF else 2 if v <= 0xFFFF else 4 if v <= 0xFFFFFFFF else 8


def lit(data, forced_width=None):
    n = len(data)
    if forced_width is None and 1 <= n <= 0x40:
        return bytes([n]) + data
    w = forced_width or width(n)
    return bytes([0x41 + [1, 2, 4, 8].index(w)]) + n.to_bytes(w, "big") + data


def copy(pos, length, wp=None, wl=None):
    wp, wl = wp or width(pos), wl or width(length)
    op = 0x45 + 4 * [1, 2, 4, 8].index(wp) + [1, 2, 4, 8].index(wl)
    return bytes([op]) + pos.to_bytes(wp, "big") + length.to_bytes(wl, "big")


class Writer:
    def __init__(self, target):
        self.dir = CORPUS / target
        self.dir.mkdir(parents=True, exist_ok=True)
        self.names = set()

    def add(self, name, data):
        name = "seed-" + name
        assert name not in self.names, name
        self.names.add(name)
        (self.dir / name).write_bytes(data)

    def finish(self):
        for f in self.dir.glob("seed-*"):
            if f.name not in self.names:
                f.unlink()
        total = sum(f.stat().st_size for f in self.dir.glob("seed-*"))
        assert total < 50 * 1024, f"{self.dir}: seeds of {total} bytes"
        print(f"{self.dir.relative_to(HERE.parent)}: {len(self.names)} seeds, {total} bytes of seeds")


def seeds_signature_load(rd, rng):
    w = Writer("signature_load")
    trailer = lambda new: Params().integral(len(new), 0, 4096).trailer()
    for i, fmt in enumerate(FORMATS):
        basis = text_like(rng, 600 + 300 * i)
        new = edited(rng, basis)
        for bl, strong in [(32, 0), (7, 3)][: 1 + (i % 2)]:
            sig = rd.signature(basis, fmt, bl, strong)
            w.add(f"{fmt[0]}-b{bl}-S{strong or fmt[4]}", sig + new + trailer(new))
    basis = text_like(rng, 400)
    sig = rd.signature(basis, FORMATS[3], 64)
    new = edited(rng, basis)
    # Header variants that still load: magic 0 (default format), strong_len 0 (full).
    w.add("magic0", be32(0) + sig[4:] + new + trailer(new))
    w.add("strong0", sig[:8] + be32(0) + sig[12:] + new + trailer(new))
    w.add("trailing3", sig + b"xyz" + trailer(b""))
    w.add("empty-basis", rd.signature(b"", FORMATS[0], 16) + b"abc" + trailer(b"abc"))
    # Ones that must fail.
    w.add("bad-truncated-record", sig[: 12 + 36 + 10] + trailer(b""))
    w.add("bad-magic-delta", DELTA_MAGIC + sig[4:64] + trailer(b""))
    w.add("bad-block-len-0", sig[:4] + be32(0) + sig[8:64] + trailer(b""))
    w.add("bad-block-len-negative", sig[:4] + be32(0x80000000) + sig[8:64] + trailer(b""))
    w.add("bad-strong-33", sig[:8] + be32(33) + sig[12:64] + trailer(b""))
    md4sig = rd.signature(basis, FORMATS[2], 64)
    w.add("bad-md4-strong-17", md4sig[:8] + be32(17) + md4sig[12:] + trailer(b""))
    w.add("bad-short-header", sig[:11] + trailer(b""))
    w.finish()


def patch_trailer(limit_index, in_sched, out_sched, max_read, basis_len):
    p = Params().pick(limit_index, 7).schedule(in_sched).schedule(out_sched)
    if max_read is None:
        p.boolean(False)
    else:
        p.boolean(True).integral(max_read, 1, 64)
    return p.integral(basis_len, 0, 8192).trailer()


def seeds_patch_apply(rd, rng):
    w = Writer("patch_apply")
    # limits: 0, 1, 100, 4096, 65536, 1 MiB, 4 MiB
    basis = text_like(rng, 3000)
    new = edited(rng, basis, 8)
    for i, (fmt, bl) in enumerate([(FORMATS[3], 64), (FORMATS[0], 16), (FORMATS[2], 256)]):
        delta = rd.delta(rd.signature(basis, fmt, bl), new)
        assert rd.patch(basis, delta) == new
        sched = [([4096], [4096], None), ([1], [7, 100], 3), ([3, 0, 511], [1], 1)][i]
        w.add(f"rdiff-{fmt[0]}-b{bl}", delta + basis + patch_trailer(5, sched[0], sched[1], sched[2], len(basis)))
    slack = rd.delta(rd.signature(b"", FORMATS[3], 0), new[:300])
    w.add("rdiff-literal-only", slack + patch_trailer(4, [15], [16], None, 0))
    small = bytes(range(256)) * 2
    every_width = (DELTA_MAGIC + lit(b"A") + lit(b"B" * 0x40) + lit(b"C" * 3, 1) + lit(b"D" * 2, 2) +
                   lit(b"E", 4) + lit(b"F", 8) + copy(0, 1) + copy(1, 2, 2, 1) + copy(3, 4, 1, 2) +
                   copy(5, 6, 4, 4) + copy(7, 8, 8, 8) + copy(300, 200) + copy(0, 512, 2, 8) + b"\x00")
    w.add("every-width", every_width + small + patch_trailer(4, [2], [1, 3], 5, len(small)))
    w.add("after-end", DELTA_MAGIC + lit(b"ok") + b"\x00" + b"ignored bytes" + patch_trailer(2, [1], [1], None, 0))
    # Expansion: many COPYs of the whole basis; hits every output limit.
    bomb = DELTA_MAGIC + copy(0, len(small)) * 300 + b"\x00"
    w.add("expand-limit-100", bomb + small + patch_trailer(2, [4096], [4096], None, len(small)))
    w.add("expand-limit-64k", bomb + small + patch_trailer(4, [511], [65536], 64, len(small)))
    w.add("expand-limit-0", DELTA_MAGIC + lit(b"x") + b"\x00" + patch_trailer(0, [1], [1], None, 0))
    # Must fail.
    w.add("bad-magic-sig", be32(0x72730136) + lit(b"x") + b"\x00" + patch_trailer(3, [1], [1], None, 0))
    w.add("bad-reserved-op", DELTA_MAGIC + lit(b"x") + b"\x55" + patch_trailer(3, [1], [1], None, 0))
    w.add("bad-copy-len-0", DELTA_MAGIC + copy(0, 0) + b"\x00" + small + patch_trailer(3, [1], [1], None, len(small)))
    w.add("bad-copy-negative", DELTA_MAGIC + copy(2**63, 1, 8, 1) + b"\x00" + small +
          patch_trailer(3, [1], [1], None, len(small)))
    w.add("bad-copy-past-end", DELTA_MAGIC + copy(500, 100) + b"\x00" + small +
          patch_trailer(3, [7], [7], 2, len(small)))
    w.add("bad-literal-huge", DELTA_MAGIC + bytes([0x44]) + (2**62).to_bytes(8, "big") + b"abc" +
          patch_trailer(6, [1], [100], None, 0))
    w.add("bad-truncated-command", DELTA_MAGIC + lit(b"abc") + b"\x49\x00" + patch_trailer(3, [1], [1], None, 0))
    w.add("bad-no-end", DELTA_MAGIC + lit(b"abc") + patch_trailer(3, [2], [2], None, 0))
    w.finish()


def seeds_delta_signature(rd, rng):
    w = Writer("delta_signature")

    def trailer(threads, slack, sig, new):
        p = Params().integral(threads, 1, 2)
        if slack == 0:
            p.boolean(True)
        else:
            p.boolean(False).integral(slack, 1, 300)
        return p.integral(len(sig), 0, 8192).integral(len(new), 0, 4096).trailer()

    for i, fmt in enumerate(FORMATS):
        basis = text_like(rng, 700 + 200 * i)
        new = edited(rng, basis, 5)
        bl, strong = [(16, 0), (64, 4), (5, 0), (128, 2)][i]
        sig = rd.signature(basis, fmt, bl, strong)
        w.add(f"{fmt[0]}-b{bl}-S{strong or fmt[4]}", sig + new + basis + trailer(1 + i % 2, 0, sig, new))
    sig = rd.signature(b"", FORMATS[1], 32)
    new = text_like(rng, 500)
    w.add("empty-sig-slack100", sig + new + trailer(1, 100, sig, new))
    basis = text_like(rng, 600)
    sig = rd.signature(basis, FORMATS[3], 32)
    w.add("short-basis", sig + basis + basis[:300] + trailer(2, 0, sig, basis))
    w.finish()


def round_trip_trailer(fmt_index, block_len, strong_len, threads, scan_threads, compose, large, seed, basis_len):
    larger = [65, 128, 255, 256, 1000, 2048, 4096, 65536]
    p = Params().pick(fmt_index, 4)
    if block_len in larger:
        p.boolean(False).pick(larger.index(block_len), len(larger))
    else:
        p.boolean(True).integral(block_len, 1, 64)
    p.integral(strong_len, 1, FORMATS[fmt_index][4]).integral(threads, 1, 3).integral(scan_threads, 2, 5)
    p.integral(compose, 0, 3).integral(0xA5 if large else 1, 0, 255).integral(seed, 0, 2**32 - 1)
    return p.integral(basis_len, 0, 8192).trailer()


def seeds_round_trip(rd, rng):
    w = Writer("round_trip")
    cases = [  # format, block_len, strong_len (0 = full), threads, scan threads, compose
        (0, 8, 0, 1, 2, 0), (1, 64, 0, 2, 3, 1), (2, 1, 4, 3, 5, 2), (3, 256, 0, 1, 4, 3),
        (3, 17, 2, 2, 2, 0), (1, 2048, 0, 1, 3, 1),
    ]
    for fi, bl, strong, threads, scan, compose in cases:
        basis = text_like(rng, rng.randrange(300, 3000))
        payload = edited(rng, basis[: len(basis) // 2], 3)
        s = strong or FORMATS[fi][4]
        w.add(f"{FORMATS[fi][0]}-b{bl}-S{s}-t{threads}-c{compose}",
              basis + payload + round_trip_trailer(fi, bl, s, threads, scan, compose, False, 0, len(basis)))
    basis = text_like(rng, 2000)
    payload = edited(rng, basis[:500])
    w.add("large-mode", drawn(lambda seed: basis + payload +
                              round_trip_trailer(3, 64, 32, 2, 2, 0, True, seed, len(basis)), 64))
    w.finish()


def seeds_kernels_differential(rd, rng):
    w = Writer("kernels_differential")
    special = [0, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 255, 256, 1024, 4096]
    # ..., window; then the window-skip filter: 2^log2 words, percent of bits set
    cases = [(0, 64, 16, 32, 12, 20), (1, 55, 20, 1, 1, 100), (7, 128, 9, 300, 10, 40),
             (33, 300, 17, 64, 6, 30), (63, 0, 40, 0, 12, 0), (5, 1, 33, 2, 3, 50), (0, 4096, 1, 200, 8, 45),
             (9, 129, 16, 129, 12, 25)]
    for offset, bl, count, window, log2, percent in cases:
        data = bytes(rng.randrange(256) for _ in range(max(bl * count, 400)))
        p = Params().integral(offset, 0, 63)
        if bl in special:
            p.boolean(True).pick(special.index(bl), len(special))
        else:
            p.boolean(False).integral(bl, 0, 300)
        p.integral(count, 0, 40).integral(window, 0, 300).integral(log2, 1, 12).integral(percent, 0, 100)
        w.add(f"off{offset}-b{bl}-n{count}-w{window}-f{log2}-{percent}", data + p.trailer())
    w.finish()


def seeds_streaming_chunks(rd, rng):
    w = Writer("streaming_chunks")
    larger = [128, 256, 1000, 2048, 4096]

    def trailer(fi, bl, strong, threads, in_s, out_s, corruption, at, basis_len, big_seed=None):
        p = Params().pick(fi, 4)
        if bl in larger:
            p.boolean(False).pick(larger.index(bl), len(larger))
        else:
            p.boolean(True).integral(bl, 1, 64)
        p.integral(strong, 1, FORMATS[fi][4]).integral(threads, 1, 3)
        if big_seed is None:
            p.integral(0, 0, 15).schedule(in_s)
        else:  # big mode: chunk_schedule::around(32768, 2 * bl + 256)
            p.integral(9, 0, 15).integral(big_seed, 0, 2**32 - 1).integral(len(in_s), 1, 4)
            for size in in_s:
                if size in BIG_TABLE:
                    p.boolean(False).pick(BIG_TABLE.index(size), len(BIG_TABLE))
                else:
                    p.boolean(True).integral(size - 32768, 0, 2 * bl + 256)
        p.schedule(out_s)
        return p.integral(corruption, 0, 3).integral(at, 0, 65535).integral(basis_len, 0, 8192).trailer()

    cases = [  # format, block_len, strong (0 = full), threads, in, out, corruption, at
        (3, 32, 0, 1, [1], [1], 0, 0), (0, 7, 0, 2, [7, 100], [3], 0, 0), (1, 128, 5, 1, [0, 4096, 1], [511], 2, 70),
        (2, 64, 0, 3, [15], [0, 16, 2], 3, 13), (3, 1, 0, 1, [65536], [1, 65536], 0, 0),
    ]
    for fi, bl, strong, threads, in_s, out_s, corruption, at in cases:
        basis = text_like(rng, rng.randrange(200, 1500))
        new = edited(rng, basis, 4)
        s = strong or FORMATS[fi][4]
        w.add(f"{FORMATS[fi][0]}-b{bl}-in{'.'.join(map(str, in_s))}-out{'.'.join(map(str, out_s))}-x{corruption}",
              basis + new + trailer(fi, bl, s, threads, in_s, out_s, corruption, at, len(basis)))
    new = text_like(rng, 700)
    w.add("empty-basis-slack", new + trailer(3, 16, 32, 1, [100], [7], 0, 0, 0))
    # Big mode: a 33-133 KB new file synthesised from the basis, windows near 32768.
    basis = text_like(rng, 3000)
    w.add("big-b32-t2", drawn(lambda seed: basis + b"payload" + trailer(1, 32, 32, 2, [32768 + 70, 65536], [4096],
                                                                        0, 0, len(basis), big_seed=seed), 16))
    w.finish()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    args = ap.parse_args()
    if not os.access(args.rdiff, os.X_OK):
        sys.exit(f"make_seeds.py needs librsync's rdiff at {args.rdiff} (apt-get install rdiff)")
    with tempfile.TemporaryDirectory() as tmp:
        rd = Rdiff(args.rdiff, tmp)
        for make in (seeds_signature_load, seeds_patch_apply, seeds_delta_signature, seeds_round_trip,
                     seeds_kernels_differential, seeds_streaming_chunks):
            make(rd, random.Random(make.__name__))


if __name__ == "__main__":
    main()
