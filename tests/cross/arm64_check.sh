#!/usr/bin/env bash
# Cross-builds rdelta for arm64 with Debian's cross toolchain (.ci/arm64-cross.ini:
# the NEON kernels, no x86 units) and runs it under qemu-user. This checks
# correctness only: qemu's timings say nothing about speed on arm64 hardware.
#   - rdelta -V: "SIMD in use: neon", and "scalar" under RDELTA_FORCE_ISA=scalar;
#   - the whole doctest unit suite (about 25 s under qemu): the kernel tests force
#     every level (scalar, neon) and compare it with OpenSSL's MD4, libb2 and the
#     plain weak-sum loops; jobs, round trips, format decoding, compression,
#     in-place patching;
#   - the streaming example;
#   - signature, delta and patch in all four formats and two block lengths, on the
#     NEON kernels and again with RDELTA_FORCE_ISA=scalar, compared byte for byte
#     with the native build (and with Debian's rdiff when present);
#   - with ARM64_INTEROP=1 and rdiff present (off in CI, for its time budget), the
#     quick interoperability suite (tests/interop/interop.py
#     --quick, about 20 s under qemu) with the arm64 rdelta.
# Every qemu run has a time limit, so a hang fails the check instead of stalling CI.
#
# qemu runs with -L /, so the ELF interpreter and libc.so.6 both come from the
# :arm64 packages (libc6:arm64). With -L /usr/aarch64-linux-gnu, qemu took the
# cross toolchain's ld.so (an older build of glibc 2.36) but libc6:arm64's
# libc.so.6, and that mix hangs in the first pthread_create: the reason the unit
# tests used to be left out here.
# Usage: arm64_check.sh SOURCE_DIR NATIVE_RDELTA. Prints the time of each phase
# and 'N passed, M failed'.
set -u
src=$(cd "$1" && pwd)
native=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }
phase_start=$SECONDS
phase() { echo "arm64 check: $1 took $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }

if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  ko "the arm64 cross toolchain or qemu-user is missing (.ci/install-deps installs them)"; finish
fi
# -O1: a behaviour check, not a speed one (qemu says nothing of arm64 speed), in
# two thirds of the compile time; a unity build halves it again.
if ! meson setup "$work/build" "$src" --cross-file "$src/.ci/arm64-cross.ini" -Dlibrsync_compat=disabled -Doptimization=1 \
     -Ddebug=false -Dunity=on -Dunity_size=8 \
     >"$work/setup.log" 2>&1; then
  tail -20 "$work/setup.log"; ko "meson setup for arm64"; finish
fi
if ! ninja -C "$work/build" src/cli/rdelta tests/unit_tests examples/streaming_service >"$work/build.log" 2>&1; then
  tail -30 "$work/build.log"; ko "arm64 build"; finish
fi
ok
phase "the cross build"

# run [SECONDS] PROGRAM ARGS...: under qemu with a time limit (default 120 s).
run() {
  local limit=120
  case $1 in [0-9]*) limit=$1; shift ;; esac
  timeout "$limit" qemu-aarch64 -L / "$@"
}
arm=$work/build/src/cli/rdelta
file "$arm" | grep -q "ARM aarch64" && ok || ko "not an arm64 binary: $(file "$arm")"
run "$arm" -V | grep -q "SIMD in use: neon" && ok || ko "rdelta -V under qemu does not say 'SIMD in use: neon'"
RDELTA_FORCE_ISA=scalar run "$arm" -V | grep -q "SIMD in use: scalar" && ok ||
  ko "RDELTA_FORCE_ISA=scalar rdelta -V under qemu does not say 'SIMD in use: scalar'"
run "$work/build/examples/streaming_service" >/dev/null && ok || ko "streaming_service under qemu"

# The unit tests write their scratch files under the current directory and TMPDIR.
mkdir "$work/unit"
if (cd "$work/unit" && run 600 "$work/build/tests/unit_tests" --no-colors=true) >"$work/unit.log" 2>&1; then
  ok
else
  grep -a -B3 -A12 "ERROR\|FATAL\|CRASHED" "$work/unit.log" | head -60; ko "unit tests under qemu"
fi
# Which levels the kernel tests ran at (a NEON path that fell back to scalar would show here).
grep -a -o "MESSAGE: .*\(ladder\|ISA level\|tested directly\|checked at level\|BLAKE2b kernels\).*" "$work/unit.log" | sort -u
grep -a "test cases:" "$work/unit.log"
phase "the unit tests under qemu"

python3 - "$work" <<'PY'
import os, random, sys
w = sys.argv[1]
r = random.Random(5)
old = bytearray(r.randbytes(300000))
new = bytearray(old)
for _ in range(30):
    a = r.randrange(0, len(new) - 500)
    new[a:a + 200] = r.randbytes(200)
new[1000:1000] = b"inserted"
open(f"{w}/old", "wb").write(old)
open(f"{w}/new", "wb").write(new)
PY
for hash in blake2 md4; do
  for roll in rabinkarp rollsum; do
    for block in 0 700; do
      fmt="-H $hash -R $roll -b $block"
      "$native" signature -H $hash -R $roll -b $block "$work/old" "$work/x86.sig" -f &&
        "$native" delta "$work/x86.sig" "$work/new" "$work/x86.delta" -f || { ko "native $fmt"; continue; }
      if command -v rdiff >/dev/null; then
        rdiff signature -H $hash -R $roll -b $block "$work/old" "$work/rdiff.sig" -f 2>/dev/null &&
          cmp -s "$work/x86.sig" "$work/rdiff.sig" && ok || ko "native signature $fmt differs from rdiff's"
      fi
      for level in neon scalar; do
        force=()
        [ "$level" = neon ] || force=(RDELTA_FORCE_ISA="$level")
        tag="$fmt ($level)"
        env "${force[@]}" timeout 120 qemu-aarch64 -L / "$arm" signature -H $hash -R $roll -b $block \
          "$work/old" "$work/arm.sig" -f && cmp -s "$work/arm.sig" "$work/x86.sig" && ok ||
          ko "signature $tag differs on arm64"
        env "${force[@]}" timeout 120 qemu-aarch64 -L / "$arm" delta "$work/x86.sig" "$work/new" "$work/arm.delta" -f &&
          cmp -s "$work/arm.delta" "$work/x86.delta" && ok || ko "delta $tag differs on arm64"
        env "${force[@]}" timeout 120 qemu-aarch64 -L / "$arm" patch "$work/old" "$work/x86.delta" "$work/arm.out" -f &&
          cmp -s "$work/arm.out" "$work/new" && ok || ko "patch $tag on arm64"
      done
    done
  done
done
phase "signatures, deltas and patches against the native build"

if [ "${ARM64_INTEROP:-0}" = 1 ] && command -v rdiff >/dev/null; then
  # interop.py runs the tool it is given: a wrapper that starts the arm64 rdelta under qemu.
  printf '#!/bin/sh\nexec qemu-aarch64 -L / %q "$@"\n' "$arm" >"$work/rdelta-arm64"
  chmod +x "$work/rdelta-arm64"
  if timeout 600 python3 "$src/tests/interop/interop.py" --rdelta "$work/rdelta-arm64" --rdiff "$(command -v rdiff)" \
       --quick --workdir "$work/interop" >"$work/interop.log" 2>&1; then
    ok
  else
    grep -a "FAIL" "$work/interop.log" | head -20; ko "interop --quick with the arm64 rdelta"
  fi
  tail -1 "$work/interop.log"
  phase "interop --quick under qemu"
else
  echo "arm64 check: interop --quick under qemu skipped (ARM64_INTEROP=1 runs it; the outputs above are compared byte for byte)"
fi
finish
