#!/bin/bash
# sparse_workflow.sh RDELTA [SIZE_GIB] [ROUNDS] - the nightly VM-image workflow on a
# sparse image (data regions every 3 GiB plus the last MiB, 20 scattered 4 KiB
# changes), rdelta and rdiff in turn on the same files. Inputs are evicted from the
# page cache before every step; prints time, peak RSS, the input left cached
# (fincore), output disk use (du) and whether outputs are identical.
# Needs SIZE_GIB (default 16) of apparent space and ~2x SIZE_GIB of real disk for
# rdiff's dense patch output. Work folder: $WORK (default /tmp/rdelta-sparse-workflow).
set -eu
rdelta=$(realpath "$1"); size_gib=${2:-16}; rounds=${3:-2}
rdiff=${RDIFF:-/usr/bin/rdiff}
work=${WORK:-/tmp/rdelta-sparse-workflow}
mkdir -p "$work" && cd "$work"
python3 - "$size_gib" <<'PY'
import os, random, sys
rng, size = random.Random(7), int(sys.argv[1]) << 30
data = [(g << 30, 8 << 20) for g in range(0, int(sys.argv[1]), 3)] + [(size - (1 << 20), 1 << 20)]
for name in ("old.img", "new.img"):
    with open(name, "wb") as f:
        f.truncate(size)
rng_data = random.Random(8)
for off, n in data:
    block = rng_data.randbytes(n)
    for name in ("old.img", "new.img"):
        with open(name, "r+b") as f:
            f.seek(off); f.write(block)
with open("new.img", "r+b") as f:
    for _ in range(20):
        f.seek(rng.randrange(0, size - 4096) & ~4095); f.write(rng.randbytes(4096))
PY
evict() { python3 -c "
import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)" "$@"; }
cached() { fincore --bytes --noheadings --output RES "$1"; }
timed() { local name=$1; shift; /usr/bin/time -f "$name: %e s, peak RSS %M KiB" "$@" 2>&1 | tail -1; }
for round in $(seq "$rounds"); do
  for tool in rdelta rdiff; do
    # rdelta's deltas end with a checksum trailer unless --no-checksum: rdiff's bytes, compared below
    bin=$rdelta; own=(--no-checksum); [ "$tool" = rdiff ] && { bin=$rdiff; own=(); }
    rm -f "$tool.sig" "$tool.delta" "$tool.out.img"
    evict old.img new.img; timed "$tool signature" "$bin" signature old.img "$tool.sig"
    echo "  old.img cached after: $(cached old.img) bytes"
    evict old.img new.img; timed "$tool delta" "$bin" "${own[@]}" delta "$tool.sig" new.img "$tool.delta"
    echo "  new.img cached after: $(cached new.img) bytes; delta $(stat -c %s "$tool.delta") bytes"
    evict old.img new.img; timed "$tool patch" "$bin" patch old.img "$tool.delta" "$tool.out.img"
    echo "  output: du $(du -k "$tool.out.img" | cut -f1) KiB of $(stat -c %s "$tool.out.img") bytes, cached $(cached "$tool.out.img") bytes"
    cmp "$tool.out.img" new.img && echo "  output identical to new.img"
    rm -f "$tool.out.img"
  done
  cmp rdelta.sig rdiff.sig && echo "signatures identical"
  cmp rdelta.delta rdiff.delta && echo "deltas identical"
done
cp --sparse=always old.img inplace.img
"$rdelta" --in-place-safe delta rdelta.sig new.img safe.delta
evict inplace.img new.img; timed "rdelta patch --in-place" "$rdelta" --in-place patch inplace.img safe.delta
echo "  du $(du -k inplace.img | cut -f1) KiB"
cmp inplace.img new.img && echo "  in-place result identical to new.img"
rm -f inplace.img
