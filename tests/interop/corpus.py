"""Deterministic corpus generation and file crafting for the rdelta/rdiff interop test.

Everything here is pure data: no processes are run. Every case carries its own seed
key, so the bytes of a case do not depend on thread scheduling or on which other cases
were selected (a failure can be re-run alone with --only).

Format facts used below are those of docs/format.md.
"""

import random
import struct
from dataclasses import dataclass

DELTA_MAGIC = 0x72730236
SIG_MAGICS = {("md4", "rollsum"): 0x72730136, ("blake2", "rollsum"): 0x72730137,
              ("md4", "rabinkarp"): 0x72730146, ("blake2", "rabinkarp"): 0x72730147}
FORMATS = [("md4", "rollsum"), ("md4", "rabinkarp"), ("blake2", "rollsum"),
           ("blake2", "rabinkarp")]
KINDS = ["random", "text", "zero", "repeat", "alpha2", "alpha3", "alpha4", "alpha8", "alpha16"]
LOW_ENTROPY = ["alpha2", "alpha3", "alpha4", "alpha8", "alpha16", "repeat"]
EDITS = ["identical", "insert", "delete", "overwrite", "append", "truncate", "shuffle",
         "unrelated", "empty_new", "empty_basis"]
BUFFER_SIZES = [(1, 1), (7, 7), (100, 100), (10000, 10000), (1, 10000), (10000, 7)]
MIB = 1 << 20

WORDS = ("the of and to in is that it was for on are with as his they be at one have "
         "this from or had by word but what some we can out other were all there when "
         "up use your how said an each she which do their time if will way about many "
         "then them write would like so these her long make thing see him two has look "
         "more day could go come did number sound no most people my over know water "
         "than call first who may down side been now find 0 1 2 3 42 1999 {} (); = -> "
         "\t#include <stdio.h> int main return").split(" ")


def content(rng, kind, size):
    """`size` bytes of the given kind. Low-entropy kinds maximise weak/strong collisions."""
    if size <= 0:
        return b""
    if kind == "random":
        return rng.randbytes(size)
    if kind == "zero":
        return bytes(size)
    if kind == "repeat":
        pattern = rng.randbytes(rng.randint(1, 40))
        return (pattern * (size // len(pattern) + 1))[:size]
    if kind.startswith("alpha"):
        symbols = rng.sample(range(256), int(kind[5:]))
        return bytes(rng.choices(symbols, k=size))
    if kind == "runs":  # runs of one byte value: windows equal to earlier ones
        values = rng.sample(range(256), 3)
        out = bytearray()
        while len(out) < size:
            out += bytes([rng.choice(values)]) * rng.choice([1, 2, rng.randint(3, 64), rng.randint(64, 1500)])
        return bytes(out[:size])
    if kind == "nearrepeat":  # a short period with rare changed bytes
        pattern = rng.randbytes(rng.randint(1, 12))
        out = bytearray((pattern * (size // len(pattern) + 1))[:size])
        for _ in range(size // 700):
            out[rng.randrange(size)] = rng.randrange(256)
        return bytes(out)
    if kind == "text":
        out, n = [], 0
        while n < size:
            line = " ".join(rng.choices(WORDS, k=rng.randint(1, 14))) + "\n"
            out.append(line)
            n += len(line)
        return "".join(out).encode()[:size]
    raise ValueError(kind)


def apply_edit(rng, kind, edit, basis, block):
    """Derive the new file from the basis. `block` scales edit sizes so that edits land
    both inside and across block boundaries. Returns (basis, new)."""
    n = len(basis)
    if edit == "identical":
        return basis, basis
    if edit == "empty_new":
        return basis, b""
    if edit == "empty_basis":
        return b"", content(rng, kind, max(n, rng.randint(1, 3 * block + 5)))
    if edit == "unrelated":
        return basis, content(rng, kind, max(1, n + rng.randint(-n // 4, n // 4 + 3)))
    if edit == "append":
        return basis, basis + content(rng, kind, rng.randint(1, 3 * block + 7))
    if edit == "truncate":
        return basis, basis[:rng.randint(0, max(0, n - 1))]
    if edit == "shuffle":
        step = max(1, block + rng.choice([0, 0, -1, 1, block // 2]))
        chunks = [basis[i:i + step] for i in range(0, n, step)]
        rng.shuffle(chunks)
        return basis, b"".join(chunks)
    new = bytearray(basis)
    if edit == "perturb":
        # +1,-2,+1 on three consecutive bytes keeps both rollsum halves (s1 and the
        # weighted s2) unchanged, so every perturbed block is a weak-sum collision with
        # its basis block; with tiny strong sums some become false matches.
        for start in range(0, n - 2, block):
            p = rng.randint(start, min(start + block, n) - 3) if block >= 3 else -1
            if p >= 0 and new[p] < 255 and new[p + 1] >= 2 and new[p + 2] < 255:
                new[p], new[p + 1], new[p + 2] = new[p] + 1, new[p + 1] - 2, new[p + 2] + 1
        return basis, bytes(new)
    for _ in range(rng.randint(1, 4)):
        pos = rng.randint(0, len(new))
        length = rng.randint(1, 2 * block + 3)
        if edit == "insert":
            new[pos:pos] = content(rng, kind, length)
        elif edit == "delete":
            del new[pos:pos + length]
        elif edit == "overwrite":
            new[pos:pos + length] = content(rng, kind, min(length, len(new) - pos))
        else:
            raise ValueError(edit)
    return basis, bytes(new)


@dataclass
class Case:
    """One basis/new pair plus the signature options used for it."""
    name: str
    kind: str
    size: int
    edit: str
    fmt: tuple = None          # (hash, rollsum) or None for rdiff's defaults
    block: int = None          # -b value, None = not given
    strong: int = None         # -S value, None = not given
    expect_sig_rc: int = 0     # 108 for over-long strong sums
    pipes: bool = False        # also run the stdin/stdout variants
    buffers: tuple = None      # (-I, -O) variant to compare with default buffers
    seed_key: str = ""

    def sig_options(self):
        opts = []
        if self.fmt:
            opts += ["-H", self.fmt[0], "-R", self.fmt[1]]
        if self.block is not None:
            opts += ["-b", str(self.block)]
        if self.strong is not None:
            opts += ["-S", str(self.strong)]
        return opts

    def materialize(self):
        rng = random.Random(self.seed_key)
        edit_block = self.block or (256 if self.size <= 65536 else 2048)
        return apply_edit(rng, self.kind, self.edit, content(rng, self.kind, self.size),
                          edit_block)


def _strong_choices(fmt):
    """Strong lengths valid for the format (32 only fits BLAKE2)."""
    base = [None, -1, 8, 16, None, 16]
    if fmt is None or fmt[0] == "blake2":
        base.append(32)
    return base


def build_cases(seed, quick):
    """All positive cases. Parameters rotate so every format, kind and edit is hit."""
    rng = random.Random(f"{seed}/plan")
    cases = []

    def add(name, kind, size, edit, fmt, block, strong, **kw):
        name = f"{len(cases):03d}-{name}"
        cases.append(Case(name, kind, size, edit, fmt, block, strong,
                          seed_key=f"{seed}/{name}", **kw))

    formats = FORMATS + [None]
    # 1. Edge sizes around the default block length (256 for regular files <= 64 KiB).
    edge_sizes = [0, 1, 255, 256, 257, 3000] if not quick else [0, 1, 255, 257]
    for fi, fmt in enumerate(formats if not quick else formats[::2]):
        for si, size in enumerate(edge_sizes):
            kind = KINDS[(fi + si) % len(KINDS)]
            edit = EDITS[(fi * 3 + si) % len(EDITS)]
            strong = _strong_choices(fmt)[(fi + si) % 5]
            add(f"edge-{kind}-{size}-{edit}", kind, size, edit, fmt, None, strong)
    # 2. Every kind x every edit, with mixed block/strong lengths.
    blocks = [None, None, 100, 256, 1000, 4096, "small"]
    pairs = [(k, e) for k in KINDS for e in EDITS] * 2
    if quick:
        pairs = rng.sample(pairs[:len(pairs) // 2], 30)
    for i, (kind, edit) in enumerate(pairs):
        fmt = formats[i % len(formats)]
        block = blocks[i % len(blocks)]
        block = rng.randint(1, 32) if block == "small" else block
        size = rng.choice([rng.randint(300, 6000), rng.randint(6000, 40000)])
        add(f"edit-{kind}-{edit}", kind, size, edit, fmt, block,
            rng.choice(_strong_choices(fmt)))
    # 3. Small block lengths 1..32: sizes at the block boundary, then a collision case
    #    (low entropy + strong length 1..3 forces weak+strong false matches).
    small = range(1, 33) if not quick else sorted(rng.sample(range(1, 33), 8))
    for b in small:
        fmt = FORMATS[b % 4]
        size = rng.choice([b - 1, b, b + 1, 5 * b + 3, rng.randint(500, 4000)])
        kind = KINDS[b % len(KINDS)]
        add(f"small-b{b}-{kind}-{size}", kind, size, EDITS[b % len(EDITS)], fmt, b,
            rng.choice([None, 8, -1, 16]))
        kind = rng.choice(LOW_ENTROPY)
        add(f"collide-b{b}-{kind}", kind, rng.randint(200, 3000),
            rng.choice(EDITS[:8]), FORMATS[(b + 1) % 4], b, rng.randint(1, 3))
        if not quick:  # a realistic file (text edits) at every tiny block length
            add(f"smalltext-b{b}", "text", rng.randint(2000, 8000), EDITS[(b + 3) % 8],
                FORMATS[(b + 2) % 4], b, rng.choice([None, -1, 8]))
    # 4. Larger explicit block lengths in every format.
    for b in ([100, 256, 1000, 4096] if not quick else [100, 4096]):
        for fi, fmt in enumerate(FORMATS):
            for size in ([b - 1, b, b + 1, 3 * b + 17, 10 * b][fi:fi + 2] if not quick
                         else [b + fi - 1]):
                kind = KINDS[(b + fi + size) % len(KINDS)]
                add(f"block-b{b}-{kind}-{size}", kind, size, EDITS[(fi + size) % len(EDITS)],
                    fmt, b, rng.choice(_strong_choices(fmt)))
    # 5. Extra collision-heavy cases at default and tiny block lengths.
    for i in range(60 if not quick else 10):
        kind = LOW_ENTROPY[i % len(LOW_ENTROPY)]
        add(f"lowent-{kind}-{i}", kind, rng.randint(100, 5000), EDITS[i % 8],
            FORMATS[i % 4], rng.choice([None, 1, 2, 3, 4, 5, 8]), rng.choice([1, 2, 3, -1]))
    # 6. Weak-sum collisions by construction (rollsum only): strong length decides.
    for i in range(24 if not quick else 6):
        fmt = FORMATS[i % 2 * 2]  # md4/rollsum, blake2/rollsum
        block = [3, 4, 5, 8, 16, 32, 64, 256][i % 8]
        add(f"perturb-b{block}-{i}", ["random", "text"][i % 2], rng.randint(1000, 20000),
            "perturb", fmt, block, [1, 1, 2, None, 8, 3][i % 6])
    # 7. A few multi-MiB files (default block = sqrt rounded to 128 multiple).
    big = [("random", 3 * MIB + 12345, "insert", FORMATS[3], None, None),
           ("random", 5 * MIB, "shuffle", FORMATS[0], None, -1),
           ("text", 2 * MIB + 7, "overwrite", FORMATS[1], None, 8),
           ("random", 4 * MIB, "identical", FORMATS[2], 4096, 16)]
    for kind, size, edit, fmt, block, strong in (big if not quick else big[:1]):
        size = size if not quick else MIB + 3
        add(f"mib-{kind}-{size}-{edit}", kind, size, edit, fmt, block, strong)
    # 9. Runs and near-periods: windows equal to earlier windows (whose strong sums
    #    delta reuses), hitting and missing, with rollsum's collisions between runs.
    for i in range(24 if not quick else 8):
        kind = ["runs", "nearrepeat"][i % 2]
        block = [None, 2, 16, 64, 100, 256, 1000, 4096][i % 8]
        add(f"periodic-{kind}-{i}", kind, rng.randint(3000, 60000), EDITS[i % 8], FORMATS[i % 4], block,
            rng.choice([None, 1, 2, 8, -1]))
    # 8. Strong lengths above the hash maximum: signature must fail with 108 in both.
    over = [(FORMATS[0], 17), (FORMATS[1], 24), (FORMATS[1], 32), (FORMATS[3], 33),
            (None, 40), (FORMATS[2], -2)]
    for fmt, strong in (over if not quick else over[::2]):
        add(f"overstrong-S{strong}", "random", 1000, "identical", fmt, None, strong,
            expect_sig_rc=108)

    for i, c in enumerate(cases):
        small_enough = c.size <= 256 * 1024 and c.expect_sig_rc == 0
        c.pipes = small_enough and i % 3 == 0
        if small_enough and c.size <= 65536 and (i % 4 == 1 or c.edit == "empty_basis"):
            c.buffers = BUFFER_SIZES[i % len(BUFFER_SIZES)]
    return cases


# ---------------------------------------------------------------------------
# Crafting signatures and deltas for the bad-input cases.

def u32(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def sig_header(magic, block_len, strong_len):
    return u32(magic) + u32(block_len) + u32(strong_len)


def expected_truncated_sig_rc(length, strong_len):
    """Exit code of `rdiff delta` on a signature cut to `length` bytes (doc 1.4):
    a short header or a partially read strong sum is 103, but 0..3 bytes of a
    weak sum at the end are silently ignored."""
    if length < 12:
        return 103
    rem = (length - 12) % (4 + strong_len)
    return 0 if rem < 4 else 103


def bad_signatures(sig, md4_sig, delta_file, rng, quick):
    """(name, bytes, expected rc or None). `sig` is a valid RK/BLAKE2 signature with
    block 64 and strong 8, `md4_sig` a valid RK/MD4 one with strong 16."""
    strong = struct.unpack(">I", sig[8:12])[0]
    rec = 4 + strong
    out = []
    for n in range(12):
        out.append((f"sig-trunc-{n}", sig[:n], 103))
    for n in sorted({13, 14, 15, 16, 17, 12 + rec - 1, 12 + rec, 12 + rec + 2,
                     12 + 2 * rec + 5, len(sig) - 1, len(sig) - strong,
                     len(sig) - strong - 1, len(sig) - rec + 3}):
        out.append((f"sig-trunc-{n}", sig[:n], expected_truncated_sig_rc(n, strong)))
    bits = range(96) if not quick else rng.sample(range(96), 16)
    for bit in bits:
        mutated = bytearray(sig)
        mutated[bit // 8] ^= 0x80 >> (bit % 8)
        out.append((f"sig-hdrflip-{bit}", bytes(mutated), None))
    for i in range(12 if not quick else 4):
        mutated = bytearray(sig)
        pos = rng.randrange(12, len(sig))
        mutated[pos] ^= 1 << rng.randrange(8)
        out.append((f"sig-bodyflip-{pos}", bytes(mutated), 0))
    body = sig[12:]
    out += [
        ("sig-badmagic", u32(0x72730148) + sig[4:], 104),
        # magic 0 means "recommended" to rs_sig_args: loads as RabinKarp+BLAKE2 (!)
        ("sig-zeromagic", bytes(4) + sig[4:], 0),
        ("sig-zeromagic-md4body", bytes(4) + md4_sig[4:], 0),
        ("sig-badmagic-short", u32(0x12345678) + sig[4:11], 103),
        # a real delta: its first commands become block_len/strong_len, so the code
        # depends on content; the crafted one has plausible lengths and reaches the
        # magic check (doc 1.4: 104)
        ("sig-is-delta", delta_file, None),
        ("sig-is-delta-crafted", u32(DELTA_MAGIC) + lit(b"abc\0\0\0\x10") + b"\0", 104),
        ("sig-block0", sig_header(0x72730147, 0, strong) + body, 106),
        ("sig-block-neg1", sig_header(0x72730147, 0xFFFFFFFF, strong) + body, 106),
        ("sig-block-min", sig_header(0x72730147, 0x80000000, strong) + body, 106),
        ("sig-block-other", sig_header(0x72730147, 32, strong) + body, 0),
        ("sig-strong33", sig_header(0x72730147, 64, 33) + body, 106),
        ("sig-strong-neg", sig_header(0x72730147, 64, 0xFFFFFFFF) + body, 106),
        ("sig-strong0-md4", md4_sig[:8] + u32(0) + md4_sig[12:], 0),
        ("sig-strong17-md4rk", sig_header(0x72730146, 64, 17) + body, 108),
        ("sig-strong17-md4rs", sig_header(0x72730136, 64, 17) + body, 108),
        ("sig-strong32-md4", sig_header(0x72730136, 64, 32) + body, 108),
        ("sig-header-only", sig[:12], 0),
        ("sig-header-only-md4rs", sig_header(0x72730136, 300, 5), 0),
    ]
    for n in (1, 2, 3):
        out.append((f"sig-trailing-{n}", sig + rng.randbytes(n), 0))
    out.append(("sig-trailing-4", sig + rng.randbytes(4), 103))
    return out


def enc(v, width):
    """Big-endian field of `width` bytes; negative values give two's complement."""
    return (v & ((1 << (8 * width)) - 1)).to_bytes(width, "big")


def width(v):
    return 1 if v < 1 << 8 else 2 if v < 1 << 16 else 4 if v < 1 << 32 else 8


WIDTH_INDEX = {1: 0, 2: 1, 4: 2, 8: 3}


def lit(data, w=None):
    """LITERAL command; w forces a length width (non-minimal encodings)."""
    if w is None and 0 < len(data) <= 64:
        return bytes([len(data)]) + data
    w = w or width(len(data))
    return bytes([0x41 + WIDTH_INDEX[w]]) + enc(len(data), w) + data


def copy(pos, length, pw=None, lw=None):
    pw, lw = pw or width(max(pos, 0)), lw or width(max(length, 0))
    return bytes([0x45 + 4 * WIDTH_INDEX[pw] + WIDTH_INDEX[lw]]) + enc(pos, pw) + enc(length, lw)


def bad_deltas(rng, basis_len, big_basis_len, valid_deltas, quick):
    """(name, delta bytes, expected rc or None, which basis: 'small'|'big'|'empty'|'pipe')."""
    M, END = u32(DELTA_MAGIC), b"\x00"
    n = basis_len
    out = [
        ("empty", b"", 103, "small"), ("short1", b"r", 103, "small"),
        ("short3", b"rs\x02", 103, "small"), ("magic-only", M, 103, "small"),
        ("magic-end", M + END, 0, "small"),
        ("missing-end-lit", M + lit(b"abc"), 103, "small"),
        ("missing-end-copy", M + copy(0, 10), 103, "small"),
        ("magic-sig", u32(0x72730147) + END, 104, "small"),
        ("magic-237", u32(0x72730237) + lit(b"x") + END, 104, "small"),
        ("magic-zero", bytes(4) + END, 104, "small"),
        ("trunc-n1-len", M + b"\x41", 103, "small"),
        ("trunc-n2-len", M + b"\x42\x00", 103, "small"),
        ("trunc-n4-len", M + b"\x43\x00\x00\x01", 103, "small"),
        ("trunc-n8-len", M + b"\x44" + bytes(7), 103, "small"),
        ("trunc-copy-pos", M + b"\x49\x00", 103, "small"),
        ("trunc-copy-len", M + b"\x54" + bytes(8) + bytes(3), 103, "small"),
        ("trunc-lit-data", M + b"\x05ab", 103, "small"),
        ("trunc-lit-n1-data", M + b"\x41\x64" + rng.randbytes(50), 103, "small"),
        ("lit-n8-huge", M + b"\x44" + enc(2**63 - 1, 8) + b"abc", 103, "small"),
        ("lit-n1-zero", M + b"\x41\x00" + END, 106, "small"),
        ("lit-n2-zero", M + b"\x42\x00\x00" + END, 106, "small"),
        ("lit-n4-zero", M + b"\x43" + bytes(4) + END, 106, "small"),
        ("lit-n8-zero", M + b"\x44" + bytes(8) + END, 106, "small"),
        ("lit-n8-negative", M + b"\x44" + enc(-1, 8) + b"abc" + END, 106, "small"),
        ("copy-len-zero", M + copy(0, 0) + END, 106, "small"),
        ("copy-len-zero-n8", M + copy(0, 0, 8, 8) + END, 106, "small"),
        ("copy-len-negative", M + copy(0, -5, 1, 8) + END, 106, "small"),
        ("copy-pos-negative", M + copy(-1, 1, 8, 1) + END, 106, "small"),
        ("copy-pos-minint", M + copy(-2**63, 1, 8, 1) + END, 106, "small"),
        ("copy-at-eof", M + copy(n, 1) + END, 103, "small"),
        ("copy-past-eof", M + copy(n + 1000, 10) + END, 103, "small"),
        ("copy-overrun", M + copy(n - 10, 20) + END, 103, "small"),
        ("copy-empty-basis", M + copy(0, 1) + END, 103, "empty"),
        ("good-then-bad-copy", M + lit(rng.randbytes(100)) + copy(0, 500) + copy(n * 2, 1)
         + END, 103, "small"),
        ("big-output-then-bad", M + copy(0, 200000) + copy(big_basis_len + 5, 1) + END,
         103, "big"),
        ("nonminimal-copy-n8n8", M + copy(3, 5, 8, 8) + END, 0, "small"),
        ("nonminimal-lit-n2-1", M + lit(b"x", 2) + END, 0, "small"),
        ("nonminimal-all-forms", M + b"".join(copy(7, 11, pw, lw) for pw in (1, 2, 4, 8)
                                              for lw in (1, 2, 4, 8))
         + b"".join(lit(rng.randbytes(3), w) for w in (1, 2, 4, 8)) + END, 0, "small"),
        ("literal-long-n4", M + lit(rng.randbytes(70000)) + copy(1, n - 1) + END, 0, "small"),
        ("trailing-after-end", M + lit(b"hello") + END + b"garbage\xff\x55", 0, "small"),
        ("trailing-ends", M + END + END + END, 0, "small"),
        ("pipe-basis-copy", M + lit(b"ab") + copy(0, 10) + END, 100, "pipe"),
        ("pipe-basis-literal", M + lit(b"only literal data") + END, 0, "pipe"),
    ]
    opcodes = [0x55, 0x56, 0x7F, 0x80, 0xAA, 0xFE, 0xFF]
    if not quick:
        opcodes += rng.sample(range(0x57, 0xFE), 6)
    for op in opcodes:
        out.append((f"opcode-{op:02x}", M + lit(b"ok") + bytes([op]) + bytes(9) + END, 106,
                    "small"))
    flips = 60 if not quick else 15
    for i in range(flips):
        delta = bytearray(valid_deltas[i % len(valid_deltas)])
        for _ in range(rng.randint(1, 3)):
            bit = rng.randrange(8 * len(delta))
            delta[bit // 8] ^= 0x80 >> (bit % 8)
        out.append((f"bitflip-{i}", bytes(delta), None, "small"))
    return out


def describe_delta(data, limit=6, around=None):
    """Short human-readable opcode listing, used in failure messages. With `around`,
    lists the commands near that byte offset."""
    if data[:4] != u32(DELTA_MAGIC):
        return f"<no delta magic: {data[:4].hex()}>"
    ops, pos = [], 4
    while pos < len(data):
        start, op = pos, data[pos]
        pos += 1
        if op == 0:
            ops.append((start, "END"))
            break
        if op <= 0x40:
            ops.append((start, f"LIT {op}"))
            pos += op
        elif op <= 0x44:
            w = [1, 2, 4, 8][op - 0x41]
            length = int.from_bytes(data[pos:pos + w], "big")
            minimal = length > 64 and w == width(length)
            ops.append((start, f"LIT{'' if minimal else f'/{w}'} {length}"))
            pos += w + length
        elif op <= 0x54:
            pw, lw = [1, 2, 4, 8][(op - 0x45) // 4], [1, 2, 4, 8][(op - 0x45) % 4]
            p = int.from_bytes(data[pos:pos + pw], "big")
            length = int.from_bytes(data[pos + pw:pos + pw + lw], "big")
            forms = "" if (pw, lw) == (width(p), width(length)) else f"/{pw}x{lw}"
            ops.append((start, f"COPY{forms}({p},{length})"))
            pos += pw + lw
        else:
            ops.append((start, f"BAD {op:#x}"))
            break
    if around is not None:
        idx = max([i for i, (s, _) in enumerate(ops) if s <= around] or [0])
        ops = ops[max(0, idx - limit // 2):]
    text = ", ".join(s for _, s in ops[:limit])
    return text + (", ..." if len(ops) > limit else "")
