"""bench_inputs.py - the generated inputs of run_bench.py: random, edited, shifted,
disk-image-like and sparse files, degenerate data and synthetic huge signatures,
cached across runs (WORKDIR/inputs-v<N>-<size>/)."""
import os
import random
import shutil
import sys
import time

GEN_VERSION = 1          # bump when generators change so cached inputs are rebuilt
CHUNK = 1 << 20          # os.urandom is fastest around 1 MiB per call
MiB = 1 << 20
# Synthetic huge signatures (size-independent, long rdiff runs): chosen by name only.
SCALE = {"scale-64g": (262144, 256 << 10, 256 << 20), "scale-1t": (1048576, 1 << 20, 64 << 20)}


def log(msg):
    print(msg, file=sys.stderr, flush=True)   # progress on stderr keeps stdout pasteable


def write_random(f, n, zeros=False):
    """Write n random (or zero) bytes in big chunks: per-byte generation would take hours."""
    while n > 0:
        k = min(n, CHUNK)
        f.write(bytes(k) if zeros else os.urandom(k))
        n -= k


def copy_stream(src, dst, n):
    while n > 0:
        buf = src.read(min(n, 8 * CHUNK))
        if not buf:
            break
        dst.write(buf)
        n -= len(buf)


def copy_sparse(src_path, dst_path):
    """Copy keeping holes (SEEK_DATA/SEEK_HOLE); a plain copy would write 16x the data."""
    size = os.path.getsize(src_path)
    with open(src_path, "rb") as src, open(dst_path, "wb") as dst:
        dst.truncate(size)
        pos = 0
        while pos < size:
            try:
                pos = os.lseek(src.fileno(), pos, os.SEEK_DATA)
            except OSError:          # ENXIO: only a hole remains
                break
            end = os.lseek(src.fileno(), pos, os.SEEK_HOLE)
            while pos < end:
                pos += os.copy_file_range(src.fileno(), dst.fileno(), end - pos, pos, pos)


def overwrite_blocks(path, count, span, rng, align=1):
    """Scatter `count` random 4 KiB writes over [0, span)."""
    with open(path, "r+b") as f:
        for _ in range(count):
            f.seek(rng.randrange(0, span - 4096) // align * align)
            f.write(os.urandom(4096))


def ext4_layout(size, rng):
    """Alternating data/zero regions, ~60% zeros, zero runs 1-64 MiB (scaled down for small sizes)."""
    hi = max(64 * 1024, min(64 * MiB, size // 16))
    lo = min(MiB, hi)
    regions, off, is_data = [], 0, True
    while off < size:
        n = rng.randint(lo, hi)
        if is_data:
            n = n * 2 // 3           # data mean = 2/3 of zero mean -> 40% data, 60% zeros
        n = min(size - off, max(4096, n // 4096 * 4096))
        regions.append((off, n, is_data))
        off += n
        is_data = not is_data
    return regions


class Inputs:
    """Generated input files, cached in WORKDIR/inputs-v<N>-<size>/ across invocations."""

    def __init__(self, workdir, size):
        self.size = size
        self.dir = os.path.join(workdir, f"inputs-v{GEN_VERSION}-{size}")
        os.makedirs(self.dir, exist_ok=True)

    def path(self, name):
        p = os.path.join(self.dir, name)
        if not os.path.exists(p):
            group = name.split("-")[0]
            t0 = time.perf_counter()
            log(f"generating {group} inputs in {self.dir} ...")
            rng = random.Random(f"{group}-{GEN_VERSION}")   # reproducible layouts
            getattr(self, "gen_" + group)(rng)
            log(f"  done in {time.perf_counter() - t0:.1f}s")
        return p

    def _finish(self, *names):
        # Generated as .tmp and renamed when complete: an interrupted run never leaves a
        # truncated file that would later look cached.
        for n in names:
            os.replace(os.path.join(self.dir, n + ".tmp"), os.path.join(self.dir, n))

    def _tmp(self, name):
        return os.path.join(self.dir, name + ".tmp")

    def gen_degenerate(self, rng):
        """4 MiB of zeros (the basis) and 4 MiB of 0x80 bytes: with rollsum every window of
        the new file has the weak sum of the zero block, and none matches."""
        with open(self._tmp("degenerate-zeros"), "wb") as f:
            f.write(bytes(4 << 20))
        with open(self._tmp("degenerate-x80"), "wb") as f:
            f.write(b"\x80" * (4 << 20))
        self._finish("degenerate-zeros", "degenerate-x80")

    def _gen_scale(self, name, blocks, block_len, new_bytes):
        """The signature of a basis of blocks * block_len bytes with no basis: header
        (RabinKarp + BLAKE2, 32-byte sums) and random records; and random new data. The
        cost of the delta depends only on the signature (weak hits: blocks / 2^32 per window)."""
        with open(self._tmp(name + "-sig"), "wb") as f:
            f.write((0x72730147).to_bytes(4, "big") + block_len.to_bytes(4, "big") + (32).to_bytes(4, "big"))
            write_random(f, blocks * 36)
        with open(self._tmp(name + "-new"), "wb") as f:
            write_random(f, new_bytes)
        self._finish(name + "-sig", name + "-new")

    def gen_scale64g(self, rng):
        self._gen_scale("scale64g", *SCALE["scale-64g"])

    def gen_scale1t(self, rng):
        self._gen_scale("scale1t", *SCALE["scale-1t"])

    def gen_old(self, rng, name="old"):
        with open(self._tmp(name), "wb") as f:
            write_random(f, self.size)
        self._finish(name)

    def gen_unrelated(self, rng):
        self.gen_old(rng, "unrelated")

    def gen_identical(self, rng):
        shutil.copyfile(self.path("old"), self._tmp("identical"))   # real copy, not a link
        self._finish("identical")

    def gen_edits(self, rng):
        shutil.copyfile(self.path("old"), self._tmp("edits"))
        overwrite_blocks(self._tmp("edits"), 1000, self.size, rng)
        self._finish("edits")

    def gen_shifted(self, rng):
        """Insert or delete 1-64 bytes at 10 places: breaks block alignment everywhere after."""
        points = sorted(rng.sample(range(1, self.size - 4096), 10))
        with open(self.path("old"), "rb") as src, open(self._tmp("shifted"), "wb") as dst:
            pos = 0
            for p in points:
                p = max(p, pos)
                copy_stream(src, dst, p - pos)
                pos = p
                n = rng.randint(1, 64)
                if rng.random() < 0.5:
                    dst.write(os.urandom(n))
                else:
                    src.seek(n, os.SEEK_CUR)
                    pos += n
            copy_stream(src, dst, self.size)
        self._finish("shifted")

    def gen_ext4(self, rng):
        """Disk-image-like pair; the zeros are written (dense), holes are the sparse case."""
        regions = ext4_layout(self.size, rng)
        with open(self._tmp("ext4-old"), "wb") as f:
            for _, n, is_data in regions:
                write_random(f, n, zeros=not is_data)
        shutil.copyfile(self._tmp("ext4-old"), self._tmp("ext4-new"))
        with open(self._tmp("ext4-new"), "r+b") as f:
            for off, n, is_data in regions:
                r = rng.random()
                if is_data and r < 0.05:            # file rewritten in place
                    f.seek(off)
                    write_random(f, n)
                elif is_data and r < 0.25:          # a few fs blocks modified
                    for _ in range(16):
                        f.seek(off + rng.randrange(0, n // 4096) * 4096)
                        f.write(os.urandom(4096))
                elif not is_data and r < 0.10:      # new file allocated in free space
                    f.seek(off)
                    write_random(f, min(n, MiB))
        self._finish("ext4-old", "ext4-new")

    def gen_sparse(self, rng):
        """16x --size apparent, --size written in 64 regions at scattered 4 KiB-aligned offsets."""
        apparent, nreg = 16 * self.size, 64
        reg = self.size // nreg // 4096 * 4096
        slot = apparent // nreg
        with open(self._tmp("sparse-old"), "wb") as f:
            f.truncate(apparent)
            for i in range(nreg):
                f.seek(i * slot + rng.randrange(0, slot - reg) // 4096 * 4096)
                write_random(f, reg)
        copy_sparse(self._tmp("sparse-old"), self._tmp("sparse-new"))
        overwrite_blocks(self._tmp("sparse-new"), 1000, apparent, rng, align=4096)
        self._finish("sparse-old", "sparse-new")
