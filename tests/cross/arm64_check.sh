#!/usr/bin/env bash
# Cross-builds rdelta for arm64 with Debian's cross toolchain (.ci/arm64-cross.ini:
# no x86 SIMD units, the scalar code) and runs it under qemu-user: the version
# line, the streaming example, and signature, delta and patch in all four formats
# and two block lengths, compared byte for byte with the native build (and with
# Debian's rdiff when present). The unit tests are built but not run here: under
# qemu they take far longer than CI allows.
# Usage: arm64_check.sh SOURCE_DIR NATIVE_RDELTA. Prints 'N passed, M failed'.
set -u
src=$(cd "$1" && pwd)
native=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  ko "the arm64 cross toolchain or qemu-user is missing (.ci/install-deps installs them)"; finish
fi
if ! meson setup "$work/build" "$src" --cross-file "$src/.ci/arm64-cross.ini" -Dlibrsync_compat=disabled \
     >"$work/setup.log" 2>&1; then
  tail -20 "$work/setup.log"; ko "meson setup for arm64"; finish
fi
if ! ninja -C "$work/build" src/cli/rdelta tests/unit_tests examples/streaming_service >"$work/build.log" 2>&1; then
  tail -30 "$work/build.log"; ko "arm64 build"; finish
fi
ok
run() { qemu-aarch64 -L /usr/aarch64-linux-gnu "$@"; }
arm=$work/build/src/cli/rdelta
file "$arm" | grep -q "ARM aarch64" && ok || ko "not an arm64 binary: $(file "$arm")"
run "$arm" -V | grep -q "SIMD in use: scalar" && ok || ko "rdelta -V under qemu"
run "$work/build/examples/streaming_service" >/dev/null && ok || ko "streaming_service under qemu"

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
      tag="-H $hash -R $roll -b $block"
      run "$arm" signature -H $hash -R $roll -b $block "$work/old" "$work/arm.sig" -f &&
        "$native" signature -H $hash -R $roll -b $block "$work/old" "$work/x86.sig" -f &&
        cmp -s "$work/arm.sig" "$work/x86.sig" && ok || ko "signature $tag differs on arm64"
      run "$arm" delta "$work/x86.sig" "$work/new" "$work/arm.delta" -f &&
        "$native" delta "$work/x86.sig" "$work/new" "$work/x86.delta" -f &&
        cmp -s "$work/arm.delta" "$work/x86.delta" && ok || ko "delta $tag differs on arm64"
      if command -v rdiff >/dev/null; then
        rdiff signature -H $hash -R $roll -b $block "$work/old" "$work/rdiff.sig" -f 2>/dev/null &&
          cmp -s "$work/arm.sig" "$work/rdiff.sig" && ok || ko "signature $tag differs from rdiff's"
      fi
      run "$arm" patch "$work/old" "$work/x86.delta" "$work/arm.out" -f && cmp -s "$work/arm.out" "$work/new" &&
        ok || ko "patch $tag on arm64"
    done
  done
done
finish
