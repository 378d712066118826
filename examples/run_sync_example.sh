#!/usr/bin/env bash
# Runs examples/sync_service: one server, two clients at once over 127.0.0.1 (the
# server's port is the one it prints, so parallel runs never collide). One client
# has an old copy that differs from the server's file in a few places and must
# transfer far fewer bytes than the file; the other has an empty copy. Both copies
# must end up byte-identical to the server's file. Usage: run_sync_example.sh SYNC_SERVICE.
# Prints 'N passed, M failed'.
set -u
prog=$1
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import random, sys
w = sys.argv[1]
rng = random.Random(5)
old = bytearray(rng.randbytes(4 << 20))
new = bytearray(old)
for _ in range(12):                       # a few scattered edits
    at = rng.randrange(0, len(new) - 100)
    new[at:at + 100] = rng.randbytes(100)
new[1000000:1000000] = rng.randbytes(3000)  # an insertion
del new[3000000:3002000]                    # a deletion
open(f"{w}/new", "wb").write(new)
open(f"{w}/old", "wb").write(old)
open(f"{w}/empty", "wb").close()
PY
passed=0 failed=0
check() { if eval "$1"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $2"; fi; }
size=$(stat -c %s "$work/new")

: >"$work/server.out"  # exists before the background server's shell opens it
"$prog" serve "$work/new" 2 >"$work/server.out" 2>"$work/server.err" &
server=$!
port=
for _ in $(seq 200); do
  port=$(sed -n 's/^port \([0-9][0-9]*\)$/\1/p' "$work/server.out")
  [ -n "$port" ] && break
  sleep 0.05
done
check "[ -n '$port' ]" "the server printed no port"

mkdir "$work/a" "$work/b"
"$prog" fetch "$port" "$work/old" "$work/a/synced" >"$work/a.out" & a=$!
"$prog" fetch "$port" "$work/empty" "$work/b/synced" >"$work/b.out" & b=$!
wait $a; rc_a=$?
wait $b; rc_b=$?
[ $rc_a -eq 0 ] && [ $rc_b -eq 0 ] || kill "$server" 2>/dev/null  # it would wait for them forever
wait $server; rc_server=$?
server=
cat "$work/a.out" "$work/b.out" "$work/server.err"
check "[ $rc_a -eq 0 ] && [ $rc_b -eq 0 ]" "a client failed ($rc_a, $rc_b)"
check "[ $rc_server -eq 0 ]" "the server exited $rc_server"
check "cmp -s '$work/a/synced' '$work/new'" "the copy synced from a close old copy differs from the server's file"
check "cmp -s '$work/b/synced' '$work/new'" "the copy synced from an empty copy differs from the server's file"
check "[ \"\$(ls -A '$work/a')\" = synced ] && [ \"\$(ls -A '$work/b')\" = synced ]" "files left beside the outputs"
# "fetched N bytes: sent S bytes of signature, received R bytes of delta"
read -r fetched sent received < <(sed -n 's/^fetched \([0-9]*\) bytes: sent \([0-9]*\) .*received \([0-9]*\) .*/\1 \2 \3/p' "$work/a.out")
check "[ '${fetched:-0}' = $size ]" "the client reports ${fetched:-no} bytes fetched, not $size"
check "[ $(( ${sent:-$size} + ${received:-$size} )) -lt $(( size / 10 )) ]" \
  "a copy differing in a few places moved ${sent:-?} + ${received:-?} bytes for a file of $size"
read -r received_b < <(sed -n 's/.*received \([0-9]*\) .*/\1/p' "$work/b.out")
check "[ ${received_b:-0} -gt $size ]" "an empty copy received ${received_b:-?} bytes, not the whole file"

# A server that is gone: the client fails and publishes nothing.
"$prog" fetch "$port" "$work/old" "$work/a/none" 2>/dev/null; rc=$?
check "[ $rc -ne 0 ] && [ ! -e '$work/a/none' ]" "a fetch without a server exited $rc"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
