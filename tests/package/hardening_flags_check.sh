#!/usr/bin/env bash
# The installed binary and library carry Debian's hardening: PIE, full RELRO
# (GNU_RELRO and BIND_NOW), a stack protector and _FORTIFY_SOURCE's checked calls.
# Usage: hardening_flags_check.sh RDELTA LIBRDELTA_SO. Prints 'N passed, M failed'.
set -u
passed=0 failed=0
check() { if eval "$1"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $2"; fi; }
for f in "$@"; do
  headers=$(readelf -lW "$f") dynamic=$(readelf -dW "$f") symbols=$(readelf --dyn-syms -W "$f")
  check 'grep -q "GNU_RELRO" <<<"$headers"' "$f: no GNU_RELRO segment (-Wl,-z,relro)"
  check 'grep -Eq "BIND_NOW|FLAGS_1.*NOW" <<<"$dynamic"' "$f: not bound now (-Wl,-z,now)"
  check 'grep -q "__stack_chk_fail" <<<"$symbols"' "$f: no stack protector (-fstack-protector-strong)"
  check 'grep -v __stack_chk <<<"$symbols" | grep -Eq "__[a-z0-9_]+_chk"' "$f: no _FORTIFY_SOURCE checked calls"
done
program=$1 type=$(readelf -hW "$1" | awk '/Type:/ {print $2}')
check '[ "$type" = DYN ]' "$program: not a position-independent executable"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
