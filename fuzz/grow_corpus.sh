#!/usr/bin/env bash
# grow_corpus.sh BUILD_DIR TARGET EXECUTIONS [LIBFUZZER_FLAG...]
#
# A long run of one libFuzzer target: it fuzzes a temporary copy of
# fuzz/corpus/TARGET/ for EXECUTIONS executions (-runs), then merges what it grew
# back with -merge=1, which keeps only inputs that add coverage: the committed
# corpus is rewritten as the seed-* and regress-* files plus the smallest inputs of
# the old and the grown corpus that cover what they all cover (named by their
# SHA-1). Prints executions, executions per second and the corpus (files, bytes)
# before and after. A crash, hang or leak stops the run: its input is copied to
# ./fuzz-artifacts/ (or $FUZZ_ARTIFACTS), what the run grew until then is merged
# all the same (libFuzzer keeps only inputs that ran to the end), and the script
# exits 1.
#
# The time limit per input is 60 s (-timeout; a later -timeout=N overrides it):
# under nice -n 19 on a busy machine a run can wait that long for a core, and
# libFuzzer's limit counts wall-clock time.
#
# GROW_SECONDS=N stops the run after N seconds even if EXECUTIONS was not reached
# (-max_total_time); SIGINT or SIGTERM stops it too. Either way what it grew is
# merged and the executions it reached are printed.
#
# Long runs may use a faster build than CI's (HACKING.md, "Fuzzing";
# fuzz/README.md, "Long runs"): AddressSanitizer without UBSan at -O2, or for the
# deepest runs coverage only, with assertions (every input it keeps is then run
# under ASan+UBSan by CI's fuzz step, which runs the whole corpus first):
#   meson setup build-fuzz-plain --buildtype=release -Db_ndebug=false -Dfuzzing_engine=libfuzzer \
#       -Dtests=false -Dlibrsync_compat=disabled -Db_lundef=false --native-file .ci/clang.ini
#   nice -n 19 fuzz/grow_corpus.sh build-fuzz-plain signature_load 10000000
# (-Db_sanitize=address and --buildtype=debugoptimized for build-fuzz-asan).
# Run one at a time: each run uses one core.
set -u

if [ $# -lt 3 ]; then
    echo "usage: $0 BUILD_DIR TARGET EXECUTIONS [LIBFUZZER_FLAG...]" >&2
    exit 2
fi
build_dir=$1
target=$2
executions=$3
shift 3

here=$(cd "$(dirname "$0")" && pwd)
bin=$build_dir/fuzz/fuzz_$target
corpus=$here/corpus/$target
if [ ! -x "$bin" ] || [ ! -d "$corpus" ]; then
    echo "$0: no $bin or no $corpus" >&2
    exit 2
fi
case $target in
    kernels_differential|round_trip|streaming_chunks) max_len=8192 ;;
    *) max_len=4096 ;;
esac
artifacts=${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
work=$(mktemp -d "${TMPDIR:-/tmp}/rdelta-grow.XXXXXX")
trap 'rm -rf "$work"' EXIT
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export UBSAN_OPTIONS

# size DIR: "N files, B bytes"
size() {
    echo "$(find "$1" -type f | wc -l) files, $(find "$1" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}') bytes"
}

mkdir -p "$work/grown" "$work/artifacts" "$work/merged"
cp "$corpus"/* "$work/grown/"
echo "$target: corpus before: $(size "$corpus")"

time_flag=()
[ -n "${GROW_SECONDS:-}" ] && time_flag=(-max_total_time="$GROW_SECONDS")
"$bin" -runs="$executions" "${time_flag[@]}" -rss_limit_mb=2048 -timeout=60 -max_len=$max_len \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$target-" "$@" "$work/grown" >"$work/log" 2>&1 &
fuzzer=$!
# Stopped from outside: stop the fuzzer and merge what it grew. SIGTERM, which
# libFuzzer handles as SIGINT (its statistics printed): a background command of a
# script ignores SIGINT.
trap 'kill -TERM $fuzzer 2>/dev/null' INT TERM
wait $fuzzer
rc=$?
while kill -0 $fuzzer 2>/dev/null; do wait $fuzzer; rc=$?; done
trap - INT TERM

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
cov=$(grep -E '^#[0-9]+' "$work/log" | tail -n 1 | sed -n 's/.*\(cov: [0-9]*\).*\(ft: [0-9]*\).*/\1 \2/p')
echo "$target: ${execs:-?} executions (${speed:-?}/s), ${cov:-cov ?}, exit $rc"
found=0
if [ -n "$(ls "$work/artifacts")" ]; then
    found=1
    mkdir -p "$artifacts"
    cp "$work/artifacts"/* "$artifacts/"
    grep -E '^==[0-9]+==ERROR|FUZZ CHECK FAILED|runtime error|^SUMMARY' -A2 "$work/log" | head -n 30 | sed 's/^/    /'
    echo "$target: crash input(s) copied to $artifacts/: $(ls "$work/artifacts" | tr '\n' ' ')"
fi

# Seeds and regression inputs stay whatever they cover; the rest is merged anew.
find "$corpus" -maxdepth 1 -type f \( -name 'seed-*' -o -name 'regress-*' \) -exec cp {} "$work/merged/" \;
mkdir -p "$work/old"
find "$corpus" -maxdepth 1 -type f ! -name 'seed-*' ! -name 'regress-*' -exec cp {} "$work/old/" \;
if ! "$bin" -merge=1 -rss_limit_mb=2048 -timeout=60 -max_len=$max_len "$work/merged" "$work/old" "$work/grown" \
    >"$work/merge.log" 2>&1; then
    tail -n 20 "$work/merge.log" >&2
    echo "$target: merge failed; corpus left as it was" >&2
    exit 1
fi
find "$corpus" -maxdepth 1 -type f ! -name 'seed-*' ! -name 'regress-*' -delete
find "$work/merged" -maxdepth 1 -type f ! -name 'seed-*' ! -name 'regress-*' -exec cp {} "$corpus/" \;
echo "$target: corpus after: $(size "$corpus")"
exit $found
