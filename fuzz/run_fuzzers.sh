#!/usr/bin/env bash
# run_fuzzers.sh BUILD_DIR SECONDS [LIBFUZZER_FLAG...]
#
# Runs every libFuzzer target in BUILD_DIR/fuzz for SECONDS each, one after the
# other, on a temporary copy of its corpus (fuzz/corpus/<target>/), and prints
# the executions, coverage and outcome per target, then "N passed, M failed".
# Exits 1 if any target crashed, hung, leaked or failed a check; then the crash
# inputs are copied to ./fuzz-artifacts/ (or $FUZZ_ARTIFACTS) for -minimize_crash=1.
# FUZZ_JOBS fuzzers run at once (default: the number of cores), each on one core;
# outputs are printed in target order. Extra arguments go to every fuzzer.
# Runs under 120 s get -entropic=0 first (an extra -entropic=1 overrides it):
# with a corpus of hundreds of inputs, entropic scheduling's feature bookkeeping
# takes most of the first minute (measured 200 vs 800 executions/s in 20 s of
# patch_in_place, same coverage at the end).
#
# Environment: FUZZ_TARGETS="a b" to run a subset; FUZZ_KEEP=1 keeps the work
# directory (the grown corpora) and prints where it is.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS [LIBFUZZER_FLAG...]" >&2
    exit 2
fi
build_dir=$1
seconds=$2
shift 2
short_run_flags=
[ "$seconds" -lt 120 ] && short_run_flags=-entropic=0

here=$(cd "$(dirname "$0")" && pwd)
targets=${FUZZ_TARGETS:-"signature_load patch_apply delta_signature round_trip kernels_differential streaming_chunks zero_runs patch_in_place"}
artifacts=${FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
work=$(mktemp -d "${TMPDIR:-/tmp}/rdelta-fuzz.XXXXXX")
[ "${FUZZ_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

# UBSan reports are failures; ASan's defaults already are.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export UBSAN_OPTIONS

# run_target T: fuzzes one target; writes its report to $work/T/report and
# "ok" or "failed" to $work/T/result.
run_target() {
    local t=$1 bin=$build_dir/fuzz/fuzz_$1 max_len rc execs speed cov
    mkdir -p "$work/$t/corpus" "$work/$t/artifacts"
    local report=$work/$t/report log=$work/$t/log
    if [ ! -x "$bin" ]; then
        echo "$t: FAILED (no executable $bin; configure with -Dfuzzing_engine=libfuzzer)" >"$report"
        echo failed >"$work/$t/result"
        return
    fi
    case $t in
        kernels_differential|round_trip|streaming_chunks) max_len=8192 ;;
        *) max_len=4096 ;;
    esac
    cp "$here/corpus/$t"/* "$work/$t/corpus/" 2>/dev/null
    "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=$max_len \
        -print_final_stats=1 -artifact_prefix="$work/$t/artifacts/$t-" $short_run_flags "${extra[@]}" "$work/$t/corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*\(cov: [0-9]*\).*\(ft: [0-9]*\).*/\1 \2/p')
    if [ $rc -eq 0 ]; then
        echo "$t: passed, ${execs:-?} executions (${speed:-?}/s), ${cov:-cov ?}" >"$report"
        echo ok >"$work/$t/result"
        return
    fi
    {
        echo "$t: FAILED (exit $rc) after ${execs:-?} executions, ${cov:-cov ?}"
        grep -E '^==[0-9]+==ERROR|FUZZ CHECK FAILED|runtime error|^SUMMARY' -A2 "$log" | head -n 30 | sed 's/^/    /'
        if [ -n "$(ls "$work/$t/artifacts")" ]; then
            mkdir -p "$artifacts"
            cp "$work/$t/artifacts"/* "$artifacts/"
            echo "    crash input(s) copied to $artifacts/: $(ls "$work/$t/artifacts" | tr '\n' ' ')"
        fi
    } >"$report"
    echo failed >"$work/$t/result"
}

# Lane i runs targets i, i + jobs, i + 2 jobs, ... one after the other.
extra=("$@")
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
read -r -a target_list <<<"$targets"
for ((lane = 0; lane < jobs; lane++)); do
    (
        for ((i = lane; i < ${#target_list[@]}; i += jobs)); do
            run_target "${target_list[$i]}"
        done
    ) &
done
wait

passed=0
failed=0
for t in "${target_list[@]}"; do
    cat "$work/$t/report"
    if [ "$(cat "$work/$t/result" 2>/dev/null)" = ok ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
[ "${FUZZ_KEEP:-0}" = 1 ] && echo "work directory kept: $work"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
