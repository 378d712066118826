#!/usr/bin/env bash
# The main job on a generated example: signature -> delta -> patch -> cmp,
# printing sizes and times. Usage: tests/example.sh [path/to/rdelta]
set -euo pipefail
rdelta=$(realpath "${1:-build/src/cli/rdelta}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A 64 MiB "disk image": random data, then a copy with scattered 4 KiB
# overwrites, an insertion and an appended tail.
python3 - "$work" <<'PY'
import os, random, sys
work = sys.argv[1]
rng = random.Random(42)
old = bytearray(rng.randbytes(64 << 20))
new = bytearray(old)
for _ in range(200):
    at = rng.randrange(0, len(new) - 4096)
    new[at:at + 4096] = rng.randbytes(4096)
new[1000000:1000000] = b"inserted bytes"
new += rng.randbytes(100000)
open(os.path.join(work, "old.img"), "wb").write(old)
open(os.path.join(work, "new.img"), "wb").write(new)
PY

step() {
  local label=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@"
  t1=$(date +%s.%N)
  printf '%-10s %6.3f s\n' "$label" "$(echo "$t1 - $t0" | bc -l 2>/dev/null || python3 -c "print($t1-$t0)")"
}
cd "$work"
step signature "$rdelta" signature old.img old.sig
step delta "$rdelta" delta old.sig new.img new.delta
step patch "$rdelta" patch old.img new.delta rebuilt.img
cmp rebuilt.img new.img
ls -l old.img new.img old.sig new.delta rebuilt.img | awk '{printf "%-12s %12d bytes\n", $9, $5}'
echo "OK: rebuilt.img is identical to new.img"
