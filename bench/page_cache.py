#!/usr/bin/env python3
"""Page-cache footprint and cold-data speed of --nocache, against rdiff, in one run.

For a dense input file (default 4 GiB) every tool runs on cold data: the file's pages
are evicted (posix_fadvise DONTNEED) before each run; after each run fincore reports
how much of the input is left in the page cache.  Prints medians and ratios.
Usage: page_cache.py --rdelta build/src/cli/rdelta [--rdiff /usr/bin/rdiff] [--size-gib 4]
"""
import argparse, os, statistics, subprocess, sys, tempfile, time

MiB = 1 << 20


def make_input(path, size):
    """Distinct 1 MiB chunks (a counter stamped on a random buffer): cheap to write."""
    base = bytearray(os.urandom(MiB))
    with open(path, "wb") as f:
        for i in range(size // MiB):
            base[:8] = i.to_bytes(8, "little")
            f.write(base)


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def cached_bytes(path):
    r = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", path],
                       capture_output=True, text=True, check=True)
    return int(r.stdout.split()[0])


def run_cold(cmd, inputs, outputs):
    for p in inputs:
        evict(p)
    for p in outputs:
        if os.path.exists(p):
            os.remove(p)
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdelta", required=True)
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    ap.add_argument("--size-gib", type=float, default=4)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--no-rdiff", action="store_true", help="only rdelta (rdiff takes ~4 s per GiB)")
    args = ap.parse_args()
    rdelta = os.path.abspath(args.rdelta)
    work = args.dir or tempfile.mkdtemp(prefix="rdelta-cache-")
    data, sig, delta = (os.path.join(work, n) for n in ("input.bin", "input.sig", "input.delta"))
    size = int(args.size_gib * (1 << 30))
    if not os.path.exists(data) or os.path.getsize(data) != size:
        make_input(data, size)
    subprocess.run([rdelta, "--force", "signature", data, sig], check=True)
    tools = {
        "rdiff signature": [args.rdiff, "signature", data, sig + ".x"],
        "rdelta signature": [rdelta, "signature", data, sig + ".x"],
        "rdelta --nocache signature": [rdelta, "--nocache", "signature", data, sig + ".x"],
        "rdiff delta": [args.rdiff, "delta", sig, data, delta],
        "rdelta delta": [rdelta, "delta", sig, data, delta],
        "rdelta --nocache delta": [rdelta, "--nocache", "delta", sig, data, delta],
    }
    if args.no_rdiff:
        tools = {name: cmd for name, cmd in tools.items() if not name.startswith("rdiff")}
    times = {name: [] for name in tools}
    cached = {name: [] for name in tools}
    for _ in range(args.runs):  # tools alternate, so drift affects them alike
        for name, cmd in tools.items():
            times[name].append(run_cold(cmd, [data, sig], [sig + ".x", delta]))
            cached[name].append(cached_bytes(data))
    print(f"input {size / (1 << 30):g} GiB, cold data, medians of {args.runs} runs")
    print(f"{'command':28} {'time s':>8} {'MiB/s':>8} {'input cached MiB':>17}  all times")
    for name in tools:
        t = statistics.median(times[name])
        runs = " ".join(f"{x:.2f}" for x in sorted(times[name]))
        print(f"{name:28} {t:8.2f} {size / MiB / t:8.0f} {statistics.median(cached[name]) / MiB:17.1f}  {runs}")
    for op in ("signature", "delta"):
        plain, nocache = statistics.median(times[f"rdelta {op}"]), statistics.median(times[f"rdelta --nocache {op}"])
        line = f"{op}: --nocache time / cached-path time on cold data = {nocache / plain:.3f}"
        if not args.no_rdiff:
            line += f"; rdiff / rdelta --nocache = {statistics.median(times[f'rdiff {op}']) / nocache:.2f}x"
        print(line)
    if not args.dir:
        for p in (data, sig, delta, sig + ".x"):
            if os.path.exists(p):
                os.remove(p)
        os.rmdir(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
