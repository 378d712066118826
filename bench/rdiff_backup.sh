#!/usr/bin/env bash
# rdiff-backup on rdelta's engine: times an incremental backup of a 512 MiB file
# with 16 scattered 64 KiB changes, with the system's librsync and with rdelta's
# librsync.so.2 (LD_LIBRARY_PATH), alternately, then checks each backup
# (rdiff-backup verify) and restores the previous version from its reverse delta.
# Usage: bench/rdiff_backup.sh LIBDIR [ROUNDS] [WORKDIR]
#   LIBDIR: the folder holding rdelta's librsync.so.2 (build/src/capi, or
#   LIBDIR/rdelta of an install with -Dinstall_librsync_compat=true).
# Needs rdiff-backup (apt-get install rdiff-backup). Prints one line per run and
# the medians.
set -euo pipefail
lib=$(realpath "$1")
rounds=${2:-3}
work=${3:-/tmp/rdelta-rdiff-backup}
command -v rdiff-backup >/dev/null || { echo "rdiff-backup is not installed" >&2; exit 2; }
[ -e "$lib/librsync.so.2" ] || { echo "$lib/librsync.so.2 does not exist" >&2; exit 2; }
mkdir -p "$work"
cd "$work"
[ -e orig.bin ] || head -c $((512 << 20)) /dev/urandom > orig.bin

# run MODE ROUND: one backup pair; prints "MODE SECONDS checks".
run() {
  local mode=$1 round=$2 libpath=""
  [ "$mode" = rdelta ] && libpath=$lib
  rm -rf src dst old.img
  mkdir src
  cp orig.bin src/disk.img
  rdiff-backup backup src dst >/dev/null
  python3 - "$round" <<'PY'
import os, random, sys
r = random.Random(int(sys.argv[1]))
with open("src/disk.img", "r+b") as f:
    for _ in range(16):
        f.seek(r.randrange(0, (512 << 20) - 65536))
        f.write(os.urandom(65536))
PY
  sleep 1  # rdiff-backup's increments are named by the second
  local start end checks=""
  start=$(date +%s.%N)
  LD_LIBRARY_PATH=$libpath rdiff-backup backup src dst >/dev/null
  end=$(date +%s.%N)
  rdiff-backup verify dst >/dev/null && checks="verify=ok" || checks="verify=FAIL"
  LD_LIBRARY_PATH=$libpath rdiff-backup restore --at 1B dst/disk.img old.img >/dev/null 2>&1 || true
  cmp -s old.img orig.bin && checks="$checks restore-previous=ok" || checks="$checks restore-previous=FAIL"
  echo "$mode $(python3 -c "print(f'{$end - $start:.2f}')") $checks"
}

results=$(for i in $(seq "$rounds"); do run stock "$i"; run rdelta "$i"; done | tee /dev/stderr)
python3 - "$results" <<'PY'
import statistics, sys
times = {}
for line in sys.argv[1].splitlines():
    mode, secs = line.split()[:2]
    times.setdefault(mode, []).append(float(secs))
s, r = statistics.median(times["stock"]), statistics.median(times["rdelta"])
print(f"median incremental backup: stock librsync {s:.2f} s, rdelta's librsync.so.2 {r:.2f} s ({s / r:.2f}x)")
PY
if grep -q FAIL <<<"$results"; then exit 1; fi
