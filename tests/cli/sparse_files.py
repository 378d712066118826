"""sparse_files.py - sparse files for the in-place crash tests: their allocated
extents, a state that compares bytes and extent maps, exact sparse copies, and
random sparse images."""
import hashlib
import os

MiB = 1 << 20


def extents(path):
    """The allocated (data) ranges of a file, as SEEK_DATA/SEEK_HOLE report them."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        out, pos = [], 0
        while pos < size:
            try:
                data = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:
                break
            hole = os.lseek(fd, data, os.SEEK_HOLE)
            out.append((data, hole))
            pos = hole
        return size, out
    finally:
        os.close(fd)


def state(path):
    """Size, extent map and a hash of the bytes (holes read as zeros, so hashing the
    data extents with their offsets is enough once the maps are equal)."""
    size, ext = extents(path)
    h = hashlib.blake2b()
    with open(path, "rb") as f:
        for a, b in ext:
            f.seek(a)
            h.update(a.to_bytes(8, "big"))
            left = b - a
            while left:
                chunk = f.read(min(left, 4 * MiB))
                if not chunk:
                    break
                h.update(chunk)
                left -= len(chunk)
    return size, tuple(ext), h.hexdigest()


def sparse_copy(src, dst):
    """Copy with exactly the same data extents."""
    size, ext = extents(src)
    with open(src, "rb") as f, open(dst, "wb") as g:
        g.truncate(size)
        for a, b in ext:
            f.seek(a)
            g.seek(a)
            g.write(f.read(b - a))
    return dst


def write_at(f, pos, data):
    f.seek(pos)
    f.write(data)


def make_base(path, rng, size=64 * MiB, data_mib=8):
    """A sparse image: random data extents, and some zero blocks stored as data."""
    with open(path, "wb") as f:
        f.truncate(size)
        left = data_mib * MiB
        while left > 0:
            n = min(left, rng.randrange(4096, 600 * 1024))
            pos = rng.randrange(0, size - n) & ~4095
            write_at(f, pos, rng.randbytes(n) if rng.random() < 0.85 else bytes(n))
            left -= n
