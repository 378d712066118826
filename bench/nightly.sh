#!/usr/bin/env bash
# nightly.sh - the nightly VM-image backup job, end to end, as a benchmark scenario
# (not a test): an ext4 image filled with real files, a day of churn, then each
# pipeline (rdelta's README recipe, the same with --no-checksum, rdiff, rsync
# --inplace) from a cold page cache, with wall time and bytes read/written per side.
#
# Usage: bench/nightly.sh [--size 16G] [--runs N] [--work DIR] [--keep] [--seed N]
#                         [--rdelta PATH] [--rdiff PATH] [--pipelines a,b,...]
#   --size       apparent size of the image (default 16G; 2G for a quick run); it is
#                filled to ~15% with copies of /usr/share and /usr/lib plus random
#                files, and the churn writes ~500 MB of new data per 16 GiB
#   --runs       runs of every pipeline, interleaved (the order rotates); the table
#                shows medians (default 1)
#   --work       work folder (default /var/tmp/rdelta-nightly); it is removed at the
#                end unless --keep. With --keep, a later run with the same --size and
#                --seed reuses the two images
#   --pipelines  subset of rdelta,rdelta-history,rdelta-first,rdelta-nock,rdiff,rsync
#                (default: all); rdelta-first is the recipe's first night, before the image
#                has a manifest; rdelta-history the recipe with --keep-history (the image
#                already keeps points), then the restore of point 1 and of the oldest point
# Needs root (mount -o loop, drop_caches), mkfs.ext4, GNU time, python3, rdiff for
# the rdiff row and rsync for the rsync row (apt-get install rsync; the row is
# skipped when rsync is missing). Disk: about size + 4.5 x 15% of size free in the
# work folder (rdiff's patch writes the whole image densely beside the old one).
#
# With the rdelta pipeline, each run also measures the night's floor (the new
# image's data read once from a cold cache, the changed bytes written twice with
# fsync) and prints the steady night against it, split into its phases.
#
# Bytes read/written are a bash's /proc/PID/io after it has waited for the step's
# commands (Linux adds a reaped child's counters to its parent's): read_bytes is what
# came from storage, rchar what read() returned (holes included), wchar what write()
# was given, write_bytes the page cache dirtied (whole folios: a small write into a
# large folio already cached counts the folio, so it can exceed what reaches the disk).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
size=16G runs=1 work=/var/tmp/rdelta-nightly keep=0 seed=1
rdelta=$here/build/src/cli/rdelta rdiff=/usr/bin/rdiff
pipelines=rdelta,rdelta-history,rdelta-first,rdelta-nock,rdiff,rsync
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --size) size=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --seed) seed=$2; shift 2 ;;
    --rdelta) rdelta=$2; shift 2 ;;
    --rdiff) rdiff=$2; shift 2 ;;
    --pipelines) pipelines=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "unknown argument: $1" >&2; usage ;;
  esac
done

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
die() { echo "nightly.sh: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || die "needs root (mount -o loop, /proc/sys/vm/drop_caches)"
for t in mkfs.ext4 python3 /usr/bin/time fincore; do command -v "$t" >/dev/null || die "needs $t"; done
rdelta=$(realpath "$rdelta"); [ -x "$rdelta" ] || die "no rdelta at $rdelta (--rdelta PATH)"
size_bytes=$(numfmt --from=iec "${size%B}") || die "bad --size $size"
[ "$size_bytes" -ge $((1 << 30)) ] || die "--size must be at least 1G"
case $runs in ''|*[!0-9]*|0) die "bad --runs $runs" ;; esac
IFS=, read -ra want <<<"$pipelines"
todo=()
for p in "${want[@]}"; do
  case $p in
    rdelta|rdelta-history|rdelta-first|rdelta-nock) todo+=("$p") ;;
    rdiff) [ -x "$rdiff" ] && todo+=(rdiff) || log "no rdiff at $rdiff: skipping the rdiff row" ;;
    rsync) command -v rsync >/dev/null && todo+=(rsync) || log "rsync is not installed (apt-get install rsync): skipping the rsync row" ;;
    *) die "unknown pipeline $p (rdelta,rdelta-history,rdelta-first,rdelta-nock,rdiff,rsync)" ;;
  esac
done
[ ${#todo[@]} -gt 0 ] || die "no pipeline to run"

fill_bytes=$((size_bytes * 15 / 100))
churn_bytes=$((size_bytes / (1 << 20) * 500000000 / (16 << 10)))  # 500 MB per 16 GiB
stamp="v2 size=$size_bytes seed=$seed"

# --- the work folder, cleaned up by the trap -----------------------------------
mnt=$work/mnt
cleanup() {
  local rc=$?
  if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt" || umount -l "$mnt" || true; fi
  if [ "$keep" = 0 ] && [ -e "$work/.rdelta-nightly" ]; then
    rm -rf "$work"
  elif [ -e "$work/.rdelta-nightly" ]; then
    log "kept $work"
  fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -e "$work" ] && [ ! -e "$work/.rdelta-nightly" ] && [ -n "$(ls -A "$work")" ]; then
  die "$work exists and is not this script's work folder: choose another --work"
fi
mkdir -p "$work" "$mnt" "$work/host" "$work/backup"
touch "$work/.rdelta-nightly"
work=$(realpath "$work") mnt=$work/mnt
cd "$work"
reuse=0
[ -e images.done ] && [ -e basis.img ] && [ -e host/new.img ] && [ "$(cat images.done)" = "$stamp" ] && reuse=1

# Space: basis + new image + the backup copy (each ~fill + churn), rdiff's dense
# output beside the old backup, deltas and slack.
need=$((3 * (fill_bytes + 2 * churn_bytes) + (1 << 30)))
[ "$reuse" = 1 ] && need=$((need - 2 * (fill_bytes + 2 * churn_bytes)))
[[ " ${todo[*]} " = *" rdiff "* ]] && need=$((need + size_bytes))
avail=$(df -B1 --output=avail "$work" | tail -1)
log "work folder $work: $(numfmt --to=iec "$avail") free, about $(numfmt --to=iec "$need") needed"
[ "$avail" -ge "$need" ] || die "not enough space in $work: $(numfmt --to=iec "$avail") free, about $(numfmt --to=iec "$need") needed (smaller --size, another --work, or --pipelines without rdiff)"

# --- 1. the basis: ext4 on a sparse file, filled with real files ---------------
build_basis() {
  rm -f basis.img new.img images.done
  truncate -s "$size_bytes" basis.img
  mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0 basis.img  # no background init while mounted
  mount -o loop basis.img "$mnt"
  log "filling the image with $(numfmt --to=iec "$fill_bytes") (/usr/share, /usr/lib, random files)"
  python3 - "$mnt" "$fill_bytes" "$seed" <<'PY'
import os, random, shutil, sys
mnt, target, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
real_target, done = target * 3 // 4, 0
def copy_tree(src):
    global done
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for name in sorted(files):
            if done >= real_target:
                return
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            dest = mnt + path
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            try:
                shutil.copyfile(path, dest)
            except OSError:
                continue
            done += os.path.getsize(dest)
for src in ("/usr/share", "/usr/lib", "/usr/bin", "/usr/include"):
    if done < real_target:
        copy_tree(src)
real = done
os.makedirs(f"{mnt}/var/lib/data", exist_ok=True)
n = 0
while done < target:   # the rest as random data: databases, VM-internal blobs
    k = min(rng.randrange(1, 33) << 20, target - done)
    with open(f"{mnt}/var/lib/data/blob{n:04d}.bin", "wb") as f:
        for off in range(0, k, 1 << 20):
            f.write(rng.randbytes(min(1 << 20, k - off)))
    done += k; n += 1
print(f"  {real / 2**20:.0f} MiB of real files, {(done - real) / 2**20:.0f} MiB random in {n} files", file=sys.stderr)
PY
  umount "$mnt"
}

# --- 2. a day of churn, on a copy -----------------------------------------------
churn() {
  cp --sparse=always basis.img new.img
  mount -o loop new.img "$mnt"
  log "a day of churn: about $(numfmt --to=iec "$churn_bytes") of new data (seed $seed)"
  python3 - "$mnt" "$churn_bytes" "$seed" <<'PY'
import os, random, sys
mnt, budget, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed * 1000 + 1)
scale = budget / 500e6
files = []
for root, dirs, names in os.walk(mnt):
    dirs.sort()
    if root == mnt and "lost+found" in dirs:
        dirs.remove("lost+found")
    for n in sorted(names):
        p = os.path.join(root, n)
        if os.path.isfile(p) and not os.path.islink(p):
            files.append(p)
rng.shuffle(files)
def text(n):   # log-like lines: compressible, still new
    out, k = [], 0
    while k < n:
        line = f"2024-05-{rng.randrange(1, 29):02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d} host svc[{rng.randrange(1, 65536)}]: req {rng.getrandbits(64):016x} took {rng.randrange(1, 5000)} ms status {rng.choice((200, 200, 200, 304, 404, 500))}\n".encode()
        out.append(line); k += len(line)
    return b"".join(out)[:n]
def data(n):
    return text(n) if rng.random() < 0.3 else rng.randbytes(n)
stats = dict(edited=0, edit_bytes=0, replaced=0, replace_bytes=0, added=0, add_bytes=0, deleted=0, appended=0, append_bytes=0)
it = iter(files)
# edits in place: a few KiB at random offsets
while stats["edited"] < max(20, int(400 * scale)):
    p = next(it)
    sz = os.path.getsize(p)
    if sz < 4096:
        continue
    with open(p, "r+b") as f:
        for _ in range(rng.randrange(1, 5)):
            k = min(rng.randrange(512, 8193), sz)
            f.seek(rng.randrange(0, sz - k + 1)); f.write(rng.randbytes(k))
            stats["edit_bytes"] += k
    stats["edited"] += 1
# replaced files (a package upgrade): new contents under a new inode, renamed over
while stats["replace_bytes"] < budget * 0.2:
    p = next(it)
    if os.path.getsize(p) > budget * 0.05:
        continue
    sz = max(1, int(os.path.getsize(p) * rng.uniform(0.9, 1.1)))
    with open(p + ".new", "wb") as f:
        f.write(data(sz))
    os.replace(p + ".new", p)
    stats["replaced"] += 1; stats["replace_bytes"] += sz
# appends: logs grow
for _ in range(max(10, int(200 * scale))):
    p = next(it)
    k = rng.randrange(1, 65) << 10
    with open(p, "ab") as f:
        f.write(text(k))
    stats["appended"] += 1; stats["append_bytes"] += k
# deletions
for _ in range(max(20, int(300 * scale))):
    os.unlink(next(it)); stats["deleted"] += 1
# new files, the bulk of the new data
d = f"{mnt}/var/lib/newdata"
os.makedirs(d, exist_ok=True)
while stats["add_bytes"] < budget * 0.8 - stats["append_bytes"] - stats["edit_bytes"]:
    k = min(int(rng.lognormvariate(11.5, 2.0)) + 1, 64 << 20)
    with open(f"{d}/f{stats['added']:05d}", "wb") as f:
        for off in range(0, k, 1 << 20):
            f.write(data(min(1 << 20, k - off)))
    stats["added"] += 1; stats["add_bytes"] += k
print("  " + ", ".join(f"{k} {v / 2**20:.1f} MiB" if k.endswith("bytes") else f"{k} {v}" for k, v in stats.items()), file=sys.stderr)
PY
  umount "$mnt"
}

if [ "$reuse" = 1 ]; then
  log "reusing basis.img and new.img ($stamp)"
else
  build_basis
  churn
  echo "$stamp" > images.done
fi
# The host keeps the signature of what the backup server holds (made once, untimed).
mv new.img host/new.img 2>/dev/null || true
rm -f host/host.sig host/check.sig
"$rdelta" -q signature basis.img host/host.sig
read -r B S < <("$rdelta" info --json host/host.sig | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["block_length"], j["strong_length"])')
"$rdelta" -q signature -b "$B" -S "$S" host/new.img host/check.sig
log "basis: $(numfmt --to=iec "$(du -B1 basis.img | cut -f1)") on disk; new: $(numfmt --to=iec "$(du -B1 host/new.img | cut -f1)"); signature blocks of $B bytes, strong sums of $S"

# --- 3. the pipelines -------------------------------------------------------------
# step TAG CMD: drop the page cache, run CMD (a shell string) in a bash that writes its
# own /proc/PID/io once CMD's processes are reaped. Sets T (s), RB, RC, WB, WC (bytes).
step() {
  local tag=$1 cmd=$2 t0 t1
  sync; echo 3 > /proc/sys/vm/drop_caches
  t0=$EPOCHREALTIME
  if ! /usr/bin/time -f '%M' -o "$work/$tag.rss" bash -c 'eval "$1"; rc=$?; cat /proc/$$/io > "$2"; exit $rc' \
       step "$cmd" "$work/$tag.io" >"$work/$tag.out" 2>"$work/$tag.err"; then
    log "FAILED: $cmd"; cat "$work/$tag.err" >&2; return 1
  fi
  t1=$EPOCHREALTIME
  T=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
  RB=$(awk '$1 == "read_bytes:" {print $2}' "$work/$tag.io")
  RC=$(awk '$1 == "rchar:" {print $2}' "$work/$tag.io")
  WB=$(awk '$1 == "write_bytes:" {print $2}' "$work/$tag.io")
  WC=$(awk '$1 == "wchar:" {print $2}' "$work/$tag.io")
  log "  $tag: $T s, read $(numfmt --to=iec "$RB") from disk ($(numfmt --to=iec "$RC") by read()), wrote $(numfmt --to=iec "$WB") ($(numfmt --to=iec "$WC") by write()), peak RSS $(tail -1 "$work/$tag.rss") KiB"
}

results=$work/results.tsv
: > "$results"
fresh_backup() {
  rm -f backup/backup.img backup/backup.new backup/.backup.img.rdelta-journal backup/.backup.img.rdelta-manifest*
  rm -rf backup/.backup.img.rdelta-history backup/restored.img
  cp --sparse=always basis.img backup/backup.img
}
# The backup image as the last night's patch left it: with its manifest (untimed; a
# delta of the basis against its own signature makes it).
last_night_manifest() {  # [--keep-history]
  [ -f host/night0.delta ] || "$rdelta" -q delta host/host.sig basis.img host/night0.delta
  "$rdelta" -q patch --in-place "$@" backup/backup.img host/night0.delta
}
# after the backup side's step: what flushing the image to disk still takes, its disk use, correctness
finish() {  # PIPELINE HOST_T HOST_RB HOST_RC BK_T BK_RB BK_RC BK_WB BK_WC DELTA OK
  local t0 t1 flush du ok=${11}
  t0=$EPOCHREALTIME; sync backup/backup.img; t1=$EPOCHREALTIME
  flush=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
  du=$(du -B1 backup/backup.img | cut -f1)
  cmp -s backup/backup.img host/new.img || { ok=no; log "  $1: backup.img differs from new.img"; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "$ok" "$flush" "$du" >> "$results"
  log "  $1: flush after $flush s, backup.img uses $(numfmt --to=iec "$du"), correct: $ok"
}

run_rdelta() {  # $1: rdelta, rdelta-first or rdelta-nock
  local p=$1 ok=yes hT hRB hRC
  fresh_backup; rm -f host/next.sig host/tonight.delta
  [ "$p" = rdelta ] && last_night_manifest
  [ "$p" = rdelta-history ] && last_night_manifest --keep-history
  if [ "$p" != rdelta-nock ]; then
    step "$p.host" "cd host && '$rdelta' --json delta --in-place-safe --new-signature next.sig host.sig new.img tonight.delta"
  else
    step "$p.host" "cd host && '$rdelta' --json delta --in-place-safe --no-checksum --new-signature next.sig host.sig new.img tonight.delta"
  fi
  hT=$T hRB=$RB hRC=$RC
  cmp -s host/next.sig host/check.sig || { ok=no; log "  $p: next.sig differs from rdelta signature -b $B -S $S new.img"; }
  if [ "$p" = rdelta-history ]; then
    step "$p.backup" "'$rdelta' --json patch --in-place --verify --keep-history backup/backup.img host/tonight.delta"
  elif [ "$p" != rdelta-nock ]; then
    step "$p.backup" "'$rdelta' --json patch --in-place --verify backup/backup.img host/tonight.delta"
  else
    step "$p.backup" "'$rdelta' --json patch --in-place backup/backup.img host/tonight.delta"
  fi
  log "  $p: delta $(stat -c %s host/tonight.delta) bytes; $(tail -1 "$work/$p.host.err")"
  log "  $p: $(tail -1 "$work/$p.backup.err")"
  finish "$p" "$hT" "$hRB" "$hRC" "$T" "$RB" "$RC" "$WB" "$WC" "$(stat -c %s host/tonight.delta)" "$ok"
  [ "$p" = rdelta-history ] && restore_points
  return 0
}

# After rdelta-history's night: the point's bytes, and the restore of point 1 (the
# image before tonight) and of the oldest point, each checked against its root.
restore_points() {
  local pts r1 rN bytes
  pts=$("$rdelta" history --json backup/backup.img | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["points"]))')
  bytes=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["point_bytes"])' "$work/rdelta-history.backup.err")
  step restore-1 "'$rdelta' -q restore backup/backup.img 1 backup/restored.img"
  r1=$T; rm -f backup/restored.img
  step restore-oldest "'$rdelta' -q restore backup/backup.img $pts backup/restored.img"
  rN=$T; rm -f backup/restored.img
  printf '%s\t%s\t%s\t%s\t%s\n' "$run" "$bytes" "$(stat -c %s host/tonight.delta)" "$r1" "$rN" >> "$work/history.tsv"
  log "  rdelta-history: point 1 holds $(numfmt --to=iec "$bytes"); restore of point 1 $r1 s, of point $pts (oldest) $rN s"
}

run_rdiff() {
  local sT sRB sRC sWB sWC hT hRB hRC
  fresh_backup; rm -f backup/rdiff.sig host/rdiff.delta
  step rdiff.backup-sig "'$rdiff' signature backup/backup.img backup/rdiff.sig"
  sT=$T sRB=$RB sRC=$RC sWB=$WB sWC=$WC
  step rdiff.host "'$rdiff' delta backup/rdiff.sig host/new.img host/rdiff.delta"
  hT=$T hRB=$RB hRC=$RC
  step rdiff.backup-patch "'$rdiff' patch backup/backup.img host/rdiff.delta backup/backup.new && mv backup/backup.new backup/backup.img"
  log "  rdiff: signature $sT s + patch $T s on the backup side; delta $(stat -c %s host/rdiff.delta) bytes"
  finish rdiff "$hT" "$hRB" "$hRC" "$(python3 -c "print(f'{$sT + $T:.2f}')")" $((sRB + RB)) $((sRC + RC)) $((sWB + WB)) $((sWC + WC)) \
    "$(stat -c %s host/rdiff.delta)" yes
}

run_rsync() {
  local sent
  fresh_backup
  step rsync "rsync --inplace --no-whole-file --stats host/new.img backup/backup.img"
  sent=$(awk -F': ' '/^Total bytes sent/ {gsub(",", "", $2); print $2}' "$work/rsync.out")
  log "  rsync: $(grep -E '^(Literal data|Matched data|Total bytes sent|Total bytes received)' "$work/rsync.out" | tr '\n' ';')"
  finish rsync - - - "$T" "$RB" "$RC" "$WB" "$WC" "$sent" yes
}

# The night's floor, in the same run: reading the new image's data once from a cold
# cache (its extents only, as the delta reads it), plus writing the bytes the patch
# changed twice with fsync (the journal's copy of the old bytes, then the new ones).
write_read_extents() {  # a script that reads a file's data extents, skipping its holes
  cat > "$work/read_extents.py" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size, pos = os.fstat(fd).st_size, 0
while pos < size:
    try:
        data = os.lseek(fd, pos, os.SEEK_DATA)
    except OSError:
        break
    hole = os.lseek(fd, data, os.SEEK_HOLE)
    while data < hole:
        n = len(os.pread(fd, min(8 << 20, hole - data), data))
        if n == 0:
            break
        data += n
    pos = hole
PY
}
run_floor() {
  local changed rT
  changed=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["image_bytes_written"])' "$work/rdelta.backup.err" 2>/dev/null || echo 0)
  [ "$changed" -gt 0 ] || { log "  floor: no steady night measured yet"; return 0; }
  write_read_extents
  step floor.read "python3 '$work/read_extents.py' host/new.img"
  rT=$T
  step floor.write "for k in 1 2; do head -c $changed /dev/zero | dd of=backup/floor.tmp bs=1M iflag=fullblock conv=fsync,notrunc status=none; done"
  rm -f backup/floor.tmp
  printf '%s\t%s\t%s\t%s\n' "$run" "$rT" "$T" "$changed" >> "$work/floor.tsv"
  log "  floor: read the new image's data $rT s, write $(numfmt --to=iec "$changed") twice with fsync $T s"
}

for run in $(seq "$runs"); do
  n=${#todo[@]} k=$(( (run - 1) % ${#todo[@]} ))
  order=("${todo[@]:k}" "${todo[@]:0:k}")
  log "run $run of $runs: ${order[*]}"
  for p in "${order[@]}"; do
    case $p in
      rdelta|rdelta-history|rdelta-first|rdelta-nock) run_rdelta "$p" ;;
      rdiff) run_rdiff ;;
      rsync) run_rsync ;;
    esac
  done
  [[ " ${todo[*]} " == *" rdelta "* ]] && run_floor
  [ -f "$work/rdelta.backup.err" ] && tail -1 "$work/rdelta.backup.err" >> "$work/phases.jsonl"
done
rm -f backup/backup.img backup/rdiff.sig

# --- 4. the table -----------------------------------------------------------------
echo "nightly.sh --size $size --runs $runs --seed $seed: $(date -u +'%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(free -g | awk '/^Mem/ {print $2}') GiB RAM, $(uname -r)"
echo "$("$rdelta" --version 2>&1 | head -1); $("$rdiff" --version 2>&1 | head -1); rsync $(rsync --version 2>/dev/null | head -1 | awk '{print $3}')"
echo "image: $(numfmt --to=iec "$size_bytes") ext4, basis $(numfmt --to=iec "$(du -B1 basis.img | cut -f1)") on disk, new $(numfmt --to=iec "$(du -B1 host/new.img | cut -f1)") on disk"
echo
python3 - "$results" <<'PY'
import csv, statistics, sys
rows = {}
for r in csv.reader(open(sys.argv[1]), delimiter="\t"):
    rows.setdefault(r[1], []).append(r)
def med(rs, i, kind):
    vals = [float(r[i]) for r in rs if r[i] != "-"]
    if not vals:
        return "-"
    v = statistics.median(vals)
    if kind == "s":
        return f"{v:.2f}"
    for unit, k in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if v >= k:
            return f"{v / k:.{2 if unit == 'GiB' else 1}f} {unit}"
    return f"{v:.0f} B"
names = {"rdelta": "rdelta (README recipe, --verify; manifest from last night)",
         "rdelta-history": "rdelta --keep-history (the same, keeping last night as a point)",
         "rdelta-first": "rdelta, first night (no manifest yet)", "rdelta-nock": "rdelta --no-checksum",
         "rdiff": "rdiff (signature nightly)", "rsync": "rsync --inplace --no-whole-file (local)"}
print("| pipeline | host s | host read: disk / read() | backup s | backup read: disk / read() | backup written: dirtied / write() | delta | correct | backup flush after s | backup image disk use |")
print("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
for p in ("rdelta", "rdelta-history", "rdelta-first", "rdelta-nock", "rdiff", "rsync"):
    if p not in rows:
        continue
    rs = rows[p]
    host_read = "-" if rs[0][3] == "-" else f"{med(rs, 3, 'b')} / {med(rs, 4, 'b')}"
    ok = "yes" if all(r[11] == "yes" for r in rs) else "NO"
    print(f"| {names[p]} | {med(rs, 2, 's')} | {host_read} | {med(rs, 5, 's')} | {med(rs, 6, 'b')} / {med(rs, 7, 'b')} | "
          f"{med(rs, 8, 'b')} / {med(rs, 9, 'b')} | {med(rs, 10, 'b')} | {ok} | {med(rs, 12, 's')} | {med(rs, 13, 'b')} |")
PY
if [ -s "$work/floor.tsv" ]; then
  python3 - "$work/floor.tsv" "$results" "$work/phases.jsonl" <<'PY'
import csv, json, statistics, sys
med = statistics.median
f = list(csv.reader(open(sys.argv[1]), delimiter="\t"))
rows = [r for r in csv.reader(open(sys.argv[2]), delimiter="\t") if r[1] == "rdelta"]
phases = [json.loads(l)["seconds"] for l in open(sys.argv[3]) if l.strip()]
read, write = med([float(r[1]) for r in f]), med([float(r[2]) for r in f])
host, backup = med([float(r[2]) for r in rows]), med([float(r[5]) for r in rows])
floor, night = read + write, host + backup
print()
print(f"the floor: read the new image's data {read:.2f} s + write the changed bytes twice with fsync {write:.2f} s "
      f"= {floor:.2f} s; the steady night {night:.2f} s = {night / floor:.2f}x the floor")
print(f"the steady night: delta and next signature (one read) {host:.2f} s, patch {backup:.2f} s: "
      + ", ".join(f"{k.replace('_', ' ')} {med([p[k] for p in phases]):.2f} s"
                  for k in ("check", "verify_before", "write", "verify_after", "commit")))
PY
fi
if [ -s "$work/history.tsv" ]; then
  python3 - "$work/history.tsv" "$results" <<'PY'
import csv, statistics, sys
h = list(csv.reader(open(sys.argv[1]), delimiter="\t"))
rows = {}
for r in csv.reader(open(sys.argv[2]), delimiter="\t"):
    rows.setdefault(r[1], []).append(float(r[5]))
med = lambda v: statistics.median(v)
point, delta = med([float(r[1]) for r in h]), med([float(r[2]) for r in h])
print()
print(f"restore points: a night keeps {point / 2**20:.1f} MiB ({point / delta:.2f}x the delta's {delta / 2**20:.1f} MiB); "
      f"restore of point 1 {med([float(r[3]) for r in h]):.2f} s, of the oldest {med([float(r[4]) for r in h]):.2f} s")
if "rdelta" in rows and "rdelta-history" in rows:
    print(f"the night with history / without: {med(rows['rdelta-history']) / med(rows['rdelta']):.2f}x (backup side)")
PY
fi
awk -F'\t' '$12 != "yes" {bad = 1} END {exit !bad}' "$results" && { echo "!!! some result was wrong" >&2; exit 1; }
exit 0
