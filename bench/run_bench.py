#!/usr/bin/env python3
"""Benchmark rdelta against librsync's rdiff: speed, peak memory, byte-identical output.

Both tools run alternately inside one invocation, because the shared machine drifts
10-20% per hour; only the ratios from a single run are meaningful.  See bench/README.md.
"""
import argparse, ctypes, datetime, filecmp, math, os, platform, shlex, shutil
import statistics, subprocess, sys, tempfile, time

from bench_inputs import CHUNK, MiB, SCALE, Inputs, log

SCENARIOS = ["old", "edits", "shifted", "unrelated", "identical", "ext4", "sparse", "memory", "degenerate"]


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    n = int(float(t[:-1]) * units[t[-1]]) if t and t[-1] in units else int(t)
    if n < 4 * MiB:
        raise argparse.ArgumentTypeError("size must be at least 4M")
    return n


# ---------------------------------------------------------------- measuring

def become_subreaper():
    """Why not just Popen + wait4: ru_maxrss is inherited across exec (the kernel folds the
    pre-exec memory's high-water mark in), so a child spawned from Python reports at least
    Python's own peak RSS (14+ MiB), swamping rdiff's real ~2 MiB.  Instead a tiny /bin/sh
    forks the tool and exits at once; as child subreaper we adopt the tool and wait4() it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:      # 36 = PR_SET_CHILD_SUBREAPER (Linux >= 3.4)
        sys.exit(f"prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}")


def run_measured(argv, workdir):
    """Run argv; return (wall seconds incl. ~1 ms of sh start, peak RSS KiB). Exit loudly on failure."""
    with tempfile.TemporaryFile(dir=workdir) as err:
        t0 = time.perf_counter()
        sh = subprocess.run(["/bin/sh", "-c", '"$@" </dev/null >/dev/null & echo $!', "sh", *argv],
                            stdout=subprocess.PIPE, stderr=err, check=True)
        _, status, ru = os.wait4(int(sh.stdout), 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            log(f"\nERROR: command failed with exit code {code}{' (killed by signal)' if code < 0 else ''}:\n"
                f"  {shlex.join(argv)}\nstderr:\n{err.read().decode(errors='replace')[-4000:]}")
            sys.exit(2)
    return wall, ru.ru_maxrss


def warm_cache(paths):
    """One untimed read so every timed run starts with the inputs in the page cache."""
    buf = bytearray(4 * CHUNK)
    for p in paths:
        with open(p, "rb", buffering=0) as f:
            while f.readinto(buf):
                pass


def warm_free_memory(nbytes):
    """Touch and free `nbytes` of anonymous memory, untimed, right before a timed run.
    On a VM whose host takes back memory the guest has left free (free page
    reporting), a page the kernel hands out can be one the host must first bring
    back: writing a GiB of new page cache then took 1-3 s instead of 0.2 s, for
    whichever tool happened to run after a large file was deleted. Pages freed just
    now are handed out first and have not been given back yet."""
    if nbytes <= 0:
        return
    buf = bytearray(nbytes)
    view = memoryview(buf)
    for i in range(0, nbytes, 1 << 20):   # one write per page, 256 pages per step
        view[i:i + (1 << 20):4096] = b"\1" * len(range(i, min(i + (1 << 20), nbytes), 4096))
    del view, buf


HANDED_BACK = "/sys/module/page_reporting/parameters/reported_kib"


def handed_back_kib():
    """KiB of free memory this guest has reported to its host so far (free page reporting),
    or None where the kernel does not count them. The host takes such pages back, and the
    kernel's next use of them waits for the host to bring them back: a GiB written into the
    page cache took 0.24-0.27 s when no memory was handed back between the warm-up and the
    end of the write, 0.51-0.54 s when 225-325 MiB was (32 KiB writes, 8 rounds)."""
    try:
        with open(HANDED_BACK) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def warm_size(args):
    """--warm-memory, or by default twice the input size within half the available memory."""
    if args.warm_memory == "0":
        return 0
    if args.warm_memory != "auto":
        return parse_size(args.warm_memory)
    with open("/proc/meminfo") as f:
        avail = next((int(l.split()[1]) * 1024 for l in f if l.startswith("MemAvailable:")), 0)
    return min(2 * args.size, avail // 2)


def same_file(a, b):
    filecmp.BUFSIZE = 4 * CHUNK      # default 8 KiB is slow for 16 GiB sparse outputs
    filecmp.clear_cache()            # outputs are rewritten under the same names
    return filecmp.cmp(a, b, shallow=False)


# ---------------------------------------------------------------- the benchmark plan

def sig_tag(group, opts):
    return "signature" + "".join(opts).replace("-", "_") + "-" + group

class Bench:
    def __init__(self, args):
        self.args = args
        self.workdir = os.path.abspath(args.workdir)
        self.out = os.path.join(self.workdir, "out")
        shutil.rmtree(self.out, ignore_errors=True)   # stale outputs could fake a match
        os.makedirs(self.out)
        self.inp = Inputs(self.workdir, args.size)
        self.warm_bytes = warm_size(args)
        self.cmd = {"rdiff": [args.rdiff], "rdelta": [args.rdelta]}
        self.extra = {"rdiff": [], "rdelta": shlex.split(args.rdelta_args)}
        self.mismatches = []

    def argv(self, tool, opts, words):
        # rdelta's deltas end with a checksum trailer by default; --no-checksum gives
        # rdiff's bytes, which the outputs are compared with.
        own = ["--no-checksum"] if tool == "rdelta" and words[0] == "delta" else []
        return [*self.cmd[tool], "-f", *opts, *own, *self.extra[tool], *words]

    def ref_tool(self, scenario):
        return "rdelta" if scenario == "sparse" and not self.args.with_rdiff_sparse else "rdiff"

    def ref_output(self, tag, tool, opts, words):
        """Untimed prerequisite (signature or delta) made by the reference tool; the timed row
        with the same tag keeps its first output under the same name, so it is reused."""
        path = os.path.join(self.out, f"{tag}.{tool}")
        if not os.path.exists(path):
            log(f"  making reference {tag} with {tool}")
            run_measured(self.argv(tool, opts, [*words, path]), self.workdir)
        return path

    def ref_sig(self, basis, opts=()):
        group = basis.split("-")[0]            # "old", "ext4" or "sparse": one signature each
        return self.ref_output(sig_tag(group, opts), self.ref_tool(group), list(opts),
                               ["signature", self.inp.path(basis)])

    def ref_delta(self, scenario, basis, new):
        return self.ref_output(f"delta-{scenario}", self.ref_tool(scenario), [],
                               ["delta", self.ref_sig(basis), self.inp.path(new)])

    def plan(self, chosen):
        """Rows (operation, scenario, output tag, options, input bytes, make).  make() returns
        (command words, expected output or None); it runs at row time so that reference
        signatures/deltas are only built for rows that need them."""
        p, S, rows = self.inp.path, self.args.size, []
        if "old" in chosen:
            for op, opts in [("signature", []), ("signature-md4", ["-H", "md4"]),
                             ("signature-md4-rollsum", ["-H", "md4", "-R", "rollsum"]),
                             ("signature-1m-blocks", ["-b", "1048576"])]:
                rows.append((op, "old", sig_tag("old", opts), opts, S, lambda: (["signature", p("old")], None)))
        pairs = {s: ("old", s) for s in ["edits", "shifted", "unrelated", "identical"]}
        pairs.update(ext4=("ext4-old", "ext4-new"), sparse=("sparse-old", "sparse-new"))
        for scn, (basis, new) in pairs.items():
            n = S * (16 if scn == "sparse" else 1)
            if scn in chosen and basis != "old":
                rows.append(("signature", scn, sig_tag(scn, []), [], n, lambda b=basis: (["signature", p(b)], None)))
            if scn in chosen:
                rows.append(("delta", scn, f"delta-{scn}", [], n,
                             lambda b=basis, f=new: (["delta", self.ref_sig(b), p(f)], None)))
        for scn in ["edits", "unrelated", "sparse"]:
            if scn in chosen:
                (basis, new), n = pairs[scn], S * (16 if scn == "sparse" else 1)
                rows.append(("patch", scn, f"patch-{scn}", [], n,
                             lambda s=scn, b=basis, f=new: (["patch", p(b), self.ref_delta(s, b, f)], p(f))))
        if "degenerate" in chosen:
            opts = ("-H", "md4", "-R", "rollsum", "-b", "2048")
            rows.append(("delta (md4 rollsum -b 2048)", "degenerate", "delta-degenerate", [], 4 << 20,
                         lambda: (["delta", self.ref_sig("degenerate-zeros", opts), p("degenerate-x80")], None)))
        for scn, (blocks, block_len, new_bytes) in SCALE.items():
            if scn in chosen:
                name = scn.replace("-", "")
                rows.append((f"delta ({blocks} x {block_len >> 10} KiB sig)", scn, f"delta-{name}", [], new_bytes,
                             lambda n=name: (["delta", p(n + "-sig"), p(n + "-new")], None)))
        if "memory" in chosen:
            rows.append(("delta (-b 1024 sig)", "memory", "delta-memory", [], S,
                         lambda: (["delta", self.ref_sig("old", ("-b", "1024")), p("unrelated")], None)))
        return rows

    def run_row(self, row):
        op, scn, tag, opts, nbytes, make = row
        tools = ["rdelta"] if self.ref_tool(scn) == "rdelta" else ["rdiff", "rdelta"]   # sparse skips rdiff
        words, expected = make()
        warm_cache(words[1:])
        log(f"{op} / {scn}: {' vs '.join(tools)}, {self.args.runs} run(s) each")
        times = {t: [] for t in tools}
        rss = {t: 0 for t in tools}
        handed = {t: 0 for t in tools}   # runs during which the host took memory back
        quiet = {t: [] for t in tools}   # the times of the other runs
        ref, same, floor = expected, True, []
        for i in range(self.args.runs):
            # Alternate who goes first so slow drift and cache effects hit both equally.
            for tool in (tools if i % 2 == 0 else tools[::-1]):
                out = os.path.join(self.out, f"{tag}.{tool}" if ref is None else f"{tag}.{tool}.run{i + 1}")
                warm_free_memory(self.warm_bytes)
                before = handed_back_kib()
                time.sleep(self.args.pause)   # each tool starts from an idle machine
                wall, kib = run_measured(self.argv(tool, opts, [*words, out]), self.workdir)
                times[tool].append(wall)
                after = handed_back_kib()
                gone = (after - before) >> 10 if before is not None and after is not None else None
                if gone:
                    handed[tool] += 1
                else:
                    quiet[tool].append(wall)
                log(f"  run {i + 1} {tool}: {wall:.3f} s"
                    + (f" ({gone} MiB of free memory handed back to the host since the warm-up)" if gone else ""))
                rss[tool] = max(rss[tool], kib)
                if ref is None:        # the first output (rdiff's, when rdiff runs) is the reference
                    ref = out
                elif same_file(out, ref):
                    os.remove(out)     # outputs can be GiBs (unrelated delta, sparse patch)
                else:
                    same = False
                    os.replace(out, out + ".MISMATCH")
                    self.mismatches.append(f"{op} / {scn}: {tool} output {out}.MISMATCH differs from {ref}")
                    log("  !!! MISMATCH: " + self.mismatches[-1])
            if ref and writes_much(ref):
                floor.append(self.write_floor(ref, os.path.join(self.out, f"{tag}.floor")))
                log(f"  run {i + 1} write floor: {floor[-1]:.3f} s")
        identical = ("yes" if same else "NO") if (expected or len(tools) > 1) else "n/a"
        return dict(op=op, scn=scn, nbytes=nbytes, times=times, rss=rss, identical=identical, floor=floor,
                    handed=handed, quiet=quiet)

    def write_floor(self, source, out):
        """The time to write a copy of `source` 32 KiB at a time (rdelta's write size), timed
        like the tools: on this machine writing a GiB of new page cache takes 0.2 s at some
        times and 1-3 s at others, and this shows which a row's runs met."""
        warm_free_memory(self.warm_bytes)
        time.sleep(self.args.pause)
        wall, _ = run_measured(["dd", f"if={source}", f"of={out}", "bs=32K", "status=none"], self.workdir)
        os.remove(out)
        return wall


def writes_much(path):
    """Outputs of 64 MiB or more with no holes get a write floor (a sparse one would be
    written whole)."""
    st = os.stat(path)
    return st.st_size >= 64 * MiB and st.st_blocks * 512 >= st.st_size


# ---------------------------------------------------------------- reporting

def machine_info(args):
    with open("/proc/cpuinfo") as f:
        cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "unknown")

    def version(exe):
        try:
            r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10)
            return (r.stdout or r.stderr).splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"
    return [("date", datetime.datetime.now().astimezone().isoformat(timespec="seconds")),
            ("cpu", cpu), ("nproc", str(len(os.sched_getaffinity(0)))), ("kernel", platform.release()),
            ("load avg", " ".join(f"{x:.2f}" for x in os.getloadavg()) + " (at the end of the run)"),
            ("rdiff", f"{args.rdiff} ({version(args.rdiff)})"),
            ("rdelta", f"{args.rdelta} ({version(args.rdelta)}) extra args: {args.rdelta_args or '-'}"),
            ("input size", f"{args.size / MiB:g} MiB (sparse: {16 * args.size / MiB:g} MiB apparent)"),
            ("runs", f"{args.runs} per tool, alternating, page cache warm; times are medians")]


def print_table(headers, rows, markdown):
    if markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "|".join("---" if i < 2 else "---:" for i in range(len(headers))) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    for r in [headers, ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))


def report(args, results, mismatches):
    for k, v in machine_info(args):
        print(f"- {k}: {v}" if args.markdown else f"{k:>11}: {v}")
    print()
    fmt = lambda x, spec: "-" if x is None else format(x, spec)
    counted = handed_back_kib() is not None
    rows = []
    for r in results:
        med = {t: statistics.median(v) for t, v in r["times"].items()}
        a, b = med.get("rdiff"), med["rdelta"]
        mibps = lambda s: None if s is None else r["nbytes"] / MiB / s
        rss = lambda t: r["rss"][t] / 1024 if t in r["rss"] else None
        floor = statistics.median(r["floor"]) if r["floor"] else None
        rows.append([r["op"], r["scn"], fmt(a, ".3f"), fmt(b, ".3f"), fmt(a / b if a else None, ".2f") + ("x" if a else ""),
                     fmt(mibps(a), ".0f"), fmt(mibps(b), ".0f"), fmt(rss("rdiff"), ".1f"), fmt(rss("rdelta"), ".1f"),
                     fmt(floor, ".3f"), r["identical"]])
        if counted:
            rows[-1].append(" / ".join(f"{r['handed'][t]}" for t in ("rdiff", "rdelta") if t in r["handed"]))
            q = {t: statistics.median(v) for t, v in r["quiet"].items() if v}
            qa, qb = q.get("rdiff"), q.get("rdelta")
            rows[-1].append(fmt(qa / qb if qa and qb else None, ".2f") + ("x" if qa and qb else ""))
    print_table(["operation", "scenario", "rdiff s", "rdelta s", "speedup", "rdiff MiB/s", "rdelta MiB/s",
                 "rdiff RSS MiB", "rdelta RSS MiB", "write floor s", "identical"]
                + (["runs disturbed (rdiff / rdelta)", "speedup, undisturbed runs"] if counted else []), rows,
                args.markdown)
    if counted:
        print("\nruns disturbed: runs during which this guest handed free memory back to its host "
              f"({HANDED_BACK} grew between the warm-up and the run's end); a run that writes much "
              "new page cache then waits for the host to bring pages back. speedup, undisturbed runs: "
              "the ratio of the two tools' medians over their undisturbed runs only ('-' when either has none).")
    blocks = math.ceil(args.size / 1024)
    for r in (r for r in results if r["scn"] == "memory"):
        per = {t: f"{kib * 1024 / blocks:.1f} B/block (peak RSS {kib / 1024:.1f} MiB)" for t, kib in r["rss"].items()}
        print(f"\ndelta memory per signature block: delta of 'unrelated' against a -b 1024 signature "
              f"of 'old' ({blocks} blocks): rdiff {per['rdiff']}, rdelta {per['rdelta']}")
    if mismatches:
        print("\n" + "!" * 72 + "\n!!! OUTPUT MISMATCH - rdelta is NOT byte-identical to rdiff:")
        print("\n".join("!!!   " + m for m in mismatches) + "\n" + "!" * 72)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rdelta", required=True, help="rdelta binary (e.g. build/src/cli/rdelta)")
    ap.add_argument("--rdiff", default="/usr/bin/rdiff")
    ap.add_argument("--size", type=parse_size, default=parse_size("1G"), help="input size, e.g. 64M, 1G")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per tool and row")
    ap.add_argument("--workdir", default="/tmp/rdelta-bench", help="inputs (cached) and outputs")
    ap.add_argument("--keep", action="store_true", default=True, help="keep generated inputs (default)")
    ap.add_argument("--clean", action="store_true", help="delete generated inputs at the end")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS),
                    help="comma list of: " + ",".join(SCENARIOS + list(SCALE)) + " (default all but scale-*)")
    ap.add_argument("--rdelta-args", default="", help='extra options for rdelta only, e.g. "--threads 1" '
                    '(a single option without a space needs --rdelta-args=--opt)')
    ap.add_argument("--with-rdiff-sparse", action="store_true", help="also run rdiff on the sparse scenario (slow)")
    ap.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    ap.add_argument("--pause", type=float, default=1.0,
                    help="idle seconds before each timed run (default 1): a run right after rdiff's "
                         "seconds of full load measured 7-10%% slower")
    ap.add_argument("--warm-memory", default="auto",
                    help="memory touched and freed before each timed run (see warm_free_memory); "
                         "default twice --size, at most half of what is available; 0 = none")
    args = ap.parse_args()
    chosen = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = set(chosen) - set(SCENARIOS) - set(SCALE)
    if unknown or args.runs < 1:
        ap.error(f"unknown scenario(s) {sorted(unknown)}" if unknown else "--runs must be >= 1")
    for exe in (args.rdiff, args.rdelta):
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            ap.error(f"not an executable file: {exe}")
    args.rdiff, args.rdelta = os.path.abspath(args.rdiff), os.path.abspath(args.rdelta)
    become_subreaper()

    bench = Bench(args)
    results = [bench.run_row(row) for row in bench.plan(chosen)]
    report(args, results, bench.mismatches)
    if bench.mismatches:
        log(f"outputs kept for inspection in {bench.out}")
    else:
        shutil.rmtree(bench.out, ignore_errors=True)
    if args.clean:
        shutil.rmtree(bench.inp.dir, ignore_errors=True)
    sys.exit(1 if bench.mismatches else 0)


if __name__ == "__main__":
    main()
