#!/usr/bin/env bash
# pull.sh - what `rdelta pull` sends: a sparse image (40% data) with one night kept
# as a restore point (3% of its 64 KiB chunks changed, 4 KiB each), pulled back
# (--at 1) onto a copy of the image as it is now, and onto a missing file. The
# "remote" runs locally through a stand-in for ssh (a pipe, no network), so the
# figures are the bytes that would cross the wire and the time without the network.
#
# Usage: bench/pull.sh [--size 1G] [--rdelta PATH] [--work DIR]
set -euo pipefail
size=1G rdelta=build/src/cli/rdelta work=/var/tmp/rdelta-pull
while [ $# -gt 0 ]; do
  case $1 in
    --size) size=$2; shift 2 ;;
    --rdelta) rdelta=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
rdelta=$(realpath "$rdelta")
size_bytes=$(numfmt --from=iec "$size")
rm -rf "$work"; mkdir -p "$work"; trap 'rm -rf "$work"' EXIT
cd "$work"
printf '#!/bin/sh\n# ssh HOST COMMAND: run COMMAND here\nshift\nexec sh -c "$*"\n' > fakessh; chmod +x fakessh
python3 - "$size_bytes" <<'PY'
import random, subprocess, sys
size, chunk = int(sys.argv[1]), 64 << 10
rng = random.Random(5)
with open("img", "wb") as f:
    f.truncate(size)
    for at in range(0, size, 16 << 20):
        if rng.random() < 0.8:
            f.seek(at); f.write(rng.randbytes(8 << 20))
subprocess.run(["cp", "--sparse=always", "img", "new"], check=True)
with open("new", "r+b") as f:
    for c in rng.sample(range(size // chunk), size // chunk * 3 // 100):
        f.seek(c * chunk + rng.randrange(chunk - 4096)); f.write(rng.randbytes(4096))
PY
"$rdelta" -q signature img img.sig
"$rdelta" -q delta --in-place-safe img.sig new night.delta
cp --sparse=always new local.img  # what the user has: the image as it is now
touch -d "2026-12-01 03:00" img
"$rdelta" -q patch --in-place --keep-history img night.delta
data=$(du -B1 img | cut -f1)
pull() {  # LOCAL: one pull of point 1, its JSON line
  "$rdelta" pull --json -q --ssh "$work/fakessh" --remote-rdelta "$rdelta" --at 1 "localhost:$work/img" "$1" 2>&1 | tail -1
}
echo "pull.sh --size $size: $(date -u +'%Y-%m-%d %H:%M UTC'), $(nproc) cores; image $(numfmt --to=iec "$size_bytes"), $(numfmt --to=iec "$data") of data"
for case in existing missing; do
  local_file=local.img; [ $case = missing ] && local_file=fresh.img
  json=$(pull "$local_file")
  python3 - "$case" "$data" "$json" <<'PY'
import json, sys
case, data, j = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
print(f"onto {'the image as it is now' if case == 'existing' else 'a missing file'}: "
      f"{j['wire_bytes'] / 2**20:.1f} MiB over the wire ({100 * j['wire_bytes'] / data:.1f}% of the image's data; "
      f"signature {j['signature_bytes'] / 2**10:.0f} KiB, delta {j['delta_bytes'] / 2**20:.1f} MiB), "
      f"{j['image_bytes_written'] / 2**20:.1f} MiB written, {j['elapsed_s']:.2f} s")
PY
done
cmp -s local.img fresh.img && echo "both are point 1: yes" || { echo "!!! the pulls differ" >&2; exit 1; }
