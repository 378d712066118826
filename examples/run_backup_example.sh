#!/usr/bin/env bash
# Runs examples/backup_files on a generated sparse image, with a plain and with a
# zstd-compressed delta, and checks its outputs: the rebuilt file and the image
# patched in place both equal the new image, a restore point is kept, no journal or
# temporary file is left. Usage: run_backup_example.sh BACKUP_FILES.
# Prints 'N passed, M failed'.
set -u
prog=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import os, random, sys
w = sys.argv[1]
rng = random.Random(3)
with open(f"{w}/old", "wb") as f:
    f.truncate(64 << 20)
    for _ in range(40):
        f.seek(rng.randrange(0, (64 << 20) - (1 << 20)) & ~4095)
        f.write(rng.randbytes(rng.randrange(4096, 1 << 20)))
data = bytearray(open(f"{w}/old", "rb").read())
for _ in range(30):
    at = rng.randrange(0, len(data) - 8192)
    data[at:at + 4096] = rng.randbytes(4096)
data += rng.randbytes(100000)
open(f"{w}/new", "wb").write(data)
PY
passed=0 failed=0
check() { if eval "$1"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $2"; fi; }
for mode in plain zstd; do
  out=$work/out-$mode
  mkdir "$out"
  "$prog" $([ $mode = zstd ] && echo --zstd) "$work/old" "$work/new" "$out"; rc=$?
  check "[ $rc -eq 0 ]" "backup_files ($mode) exited $rc"
  check "cmp -s '$out/rebuilt' '$work/new'" "the rebuilt file ($mode) differs from the new one"
  check "cmp -s '$out/image' '$work/new'" "the image patched in place ($mode) differs from the new one"
  # Beside the image: its chunk manifest and the restore point update_in_place kept.
  check "[ -z \"\$(ls -A '$out' | grep -v -x -e old.sig -e new.delta -e rebuilt -e image \
    -e .image.rdelta-manifest -e .image.rdelta-history)\" ]" "leftovers ($mode): $(ls -A "$out" | tr '\n' ' ')"
  check "[ -d '$out/.image.rdelta-history' ]" "no restore point kept ($mode)"
  check "[ \$(du -k '$out/rebuilt' | cut -f1) -lt 40000 ]" "the rebuilt file ($mode) is not sparse"
  magic=$(head -c 4 "$out/new.delta" | od -An -tx1 | tr -d ' ')
  expected=$([ $mode = zstd ] && echo 28b52ffd || echo 72730236)
  check "[ '$magic' = '$expected' ]" "new.delta ($mode) starts with $magic, not $expected"
done
"$prog" "$work/old" "$work/new" /nonexistent/dir 2>/dev/null; rc=$?
check "[ $rc -eq 100 ]" "a missing folder gives librsync's I/O code (got $rc)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
