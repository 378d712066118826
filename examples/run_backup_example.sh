#!/usr/bin/env bash
# Runs examples/backup_files on a generated sparse image and checks its outputs:
# the rebuilt file and the image patched in place both equal the new image, no
# journal or temporary file is left. Usage: run_backup_example.sh BACKUP_FILES.
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
mkdir "$work/out"
"$prog" "$work/old" "$work/new" "$work/out"; rc=$?
check "[ $rc -eq 0 ]" "backup_files exited $rc"
check "cmp -s '$work/out/rebuilt' '$work/new'" "the rebuilt file differs from the new one"
check "cmp -s '$work/out/image' '$work/new'" "the image patched in place differs from the new one"
check "[ -z \"\$(ls -A '$work/out' | grep -v -x -e old.sig -e new.delta -e rebuilt -e image)\" ]" \
  "leftovers: $(ls -A "$work/out" | tr '\n' ' ')"
check "[ \$(du -k '$work/out/rebuilt' | cut -f1) -lt 40000 ]" "the rebuilt file is not sparse"
"$prog" "$work/old" "$work/new" /nonexistent/dir 2>/dev/null; rc=$?
check "[ $rc -eq 100 ]" "a missing folder gives librsync's I/O code (got $rc)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
