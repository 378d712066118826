#!/usr/bin/env python3
"""blake2b_x16_avx512_gen.py - writes blake2b_x16_avx512.S, the BLAKE2b compression
of one block of 16 messages at once in AVX-512 (called by blake2b_avx512.cpp).

Why assembly: on Zen 5 a vector add, xor or rotate takes two cycles and four
issue per cycle, so the core needs eight independent G chains side by side: the
four columns (then the four diagonals) of two groups of eight messages. Their
state is exactly the 32 zmm registers, and GCC 12 spills a quarter of it when
the C++ body is written in that order (no faster than mix after mix). Written
here with no spill, one block of 16 messages compresses in about 780 cycles, near
the 672 that four operations per cycle allow (2,688 of them), and 16 x 32 KiB
messages hash at 6.1 against 5.5 GiB/s (medians of 16 alternating runs on a busy
host). The build runs this script; the unit tests and the kernels_differential
fuzzer check the kernel against libb2 and the scalar code.

The function (System V ABI; every zmm register is caller-saved):
  void rdelta_blake2b256_x16_blocks_avx512(uint64_t h[128], const uint8_t* const p[16],
                                           size_t count, uint64_t t, uint64_t f, uint64_t m[256]);
compresses `count` consecutive 128-byte blocks of every message, block j of
message i at p[i] + 128 j, with byte counter t + 128 j and final-block flag f
(0 or ~0; only a call for a single block passes ~0). h is the chaining value,
word j of messages 0-7 at h[16j..16j+7] and of messages 8-15 at
h[16j+8..16j+15] (two_zmm's `vec h[8]`), updated in place; m is scratch for one
transposed block in that layout (`vec m[16]`); both 64-byte aligned.
Registers: while a block is compressed, zmm k holds state word v[k] of messages
0-7 and zmm 16+k that of messages 8-15.
"""
import sys

SIGMA = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
]
ROUNDS = SIGMA + SIGMA[:2]  # rounds 10 and 11 reuse rows 0 and 1
COLUMNS = [(0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15)]
DIAGONALS = [(0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)]
NAME = "rdelta_blake2b256_x16_blocks_avx512"
WORD = 128  # bytes per state or message word: 16 messages x 8 bytes


def four_mixes(quads, words):
    """G on four (a, b, c, d) quadruples for both groups, one step for all eight
    chains at a time. words: the (x, y) message word indices of each quadruple."""
    chains = []
    for (a, b, c, d), (x, y) in zip(quads, words):
        for group in (0, 1):
            r = 16 * group
            chains.append((a + r, b + r, c + r, d + r, x * WORD + 64 * group, y * WORD + 64 * group))
    lines = []

    def each(step):
        lines.extend(step(*chain) for chain in chains)

    for half, (rot_d, rot_b) in enumerate(((32, 24), (16, 63))):
        each(lambda a, b, c, d, x, y: f"vpaddq {y if half else x}(%r9), %zmm{a}, %zmm{a}")
        each(lambda a, b, c, d, x, y: f"vpaddq %zmm{b}, %zmm{a}, %zmm{a}")
        each(lambda a, b, c, d, x, y: f"vpxorq %zmm{a}, %zmm{d}, %zmm{d}")
        each(lambda a, b, c, d, x, y: f"vprorq ${rot_d}, %zmm{d}, %zmm{d}")
        each(lambda a, b, c, d, x, y: f"vpaddq %zmm{d}, %zmm{c}, %zmm{c}")
        each(lambda a, b, c, d, x, y: f"vpxorq %zmm{c}, %zmm{b}, %zmm{b}")
        each(lambda a, b, c, d, x, y: f"vprorq ${rot_b}, %zmm{b}, %zmm{b}")
    return lines


IV = [
    0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
    0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179,
]
POINTERS = ["%r10", "%r11", "%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15"]
SAVED = ["%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15"]


def load_block():
    """Messages 0-7, then 8-15: the block at p[i] + %rax, transposed into m."""
    lines = []
    for group in (0, 1):
        lines += [f"movq {8 * (8 * group + i)}(%rsi), {reg}" for i, reg in enumerate(POINTERS)]
        # zmm 2k: bytes 16k..16k+15 of messages 0, 2, 4, 6 in its 128-bit lanes;
        # zmm 2k+1: of messages 1, 3, 5, 7. Unpacking pairs them into words 2k, 2k+1.
        for k in range(8):
            for odd in (0, 1):
                reg = 2 * k + odd
                lines.append(f"vmovdqu {16 * k}({POINTERS[odd]},%rax), %xmm{reg}")
                for lane in (1, 2, 3):
                    lines.append(f"vinserti32x4 ${lane}, {16 * k}({POINTERS[2 * lane + odd]},%rax), %zmm{reg}, %zmm{reg}")
        for k in range(8):
            for word, op in ((2 * k, "vpunpcklqdq"), (2 * k + 1, "vpunpckhqdq")):
                lines.append(f"{op} %zmm{2 * k + 1}, %zmm{2 * k}, %zmm{16 + word % 16}")
                lines.append(f"vmovdqa64 %zmm{16 + word % 16}, {word * WORD + 64 * group}(%r9)")
    return lines


def compress():
    """One block: v = h, IV (counter %rcx, flag %r8); twelve rounds; h ^= v ^ v'."""
    lines = []
    for j in range(8):
        lines += [f"vmovdqa64 {j * WORD}(%rdi), %zmm{j}", f"vmovdqa64 {j * WORD + 64}(%rdi), %zmm{j + 16}"]
    for k in range(8):
        lines.append(f"movabsq ${IV[k]:#x}, %r10")
        if k == 4:
            lines.append("xorq %rcx, %r10")
        if k == 6:
            lines.append("xorq %r8, %r10")
        lines += [f"vpbroadcastq %r10, %zmm{k + 8}", f"vmovdqa64 %zmm{k + 8}, %zmm{k + 24}"]
    for s in ROUNDS:
        lines += four_mixes(COLUMNS, [(s[0], s[1]), (s[2], s[3]), (s[4], s[5]), (s[6], s[7])])
        lines += four_mixes(DIAGONALS, [(s[8], s[9]), (s[10], s[11]), (s[12], s[13]), (s[14], s[15])])
    for j in range(8):
        for r, off in ((0, j * WORD), (16, j * WORD + 64)):
            lines += [f"vpternlogq $0x96, {off}(%rdi), %zmm{j + 8 + r}, %zmm{j + r}",
                      f"vmovdqa64 %zmm{j + r}, {off}(%rdi)"]
    return lines


def body():
    lines = [f"pushq {reg}" for reg in SAVED]
    lines += ["xorl %eax, %eax", "testq %rdx, %rdx", "jz .Ldone"]
    lines += [".Lblock:"] + load_block() + compress()
    lines += ["addq $128, %rax", "addq $128, %rcx", "decq %rdx", "jnz .Lblock", ".Ldone:"]
    lines += [f"popq {reg}" for reg in reversed(SAVED)]
    return lines + ["vzeroupper", "ret"]


def main(path):
    text = [
        "/* Generated by blake2b_x16_avx512_gen.py; see there. */",
        "#if defined(__x86_64__) && defined(__ELF__)",
        "\t.text",
        f"\t.globl {NAME}",
        f"\t.hidden {NAME}",
        f"\t.type {NAME}, @function",
        "\t.p2align 6",
        f"{NAME}:",
    ]
    text += [line if line.endswith(":") else "\t" + line for line in body()]
    text += [f"\t.size {NAME}, .-{NAME}", '\t.section .note.GNU-stack,"",@progbits', "#endif", ""]
    with open(path, "w") as out:
        out.write("\n".join(text))


if __name__ == "__main__":
    main(sys.argv[1])
