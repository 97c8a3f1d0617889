#!/bin/sh
# SPDX-License-Identifier: MIT
# Fuzz cdlab's readers with libFuzzer (clang, ASan + UBSan): config, pose CSV, scene CSV, query
# CSV, mesh reader, and mesh -> hierarchy -> query. Sets up BUILD (clang, -Dfuzz=true) when
# needed, then runs each target for SECONDS on a working copy of its seed corpus and regression
# inputs (tests/fuzz/corpus/<t>, tests/fuzz/regressions/<t>); inputs libFuzzer finds go to
# BUILD/fuzz/<t>/corpus, crashing ones to BUILD/fuzz/<t>/artifacts. Prints one line per target
# and exits 1 if any target crashed, leaked, hung or broke a sanitizer rule.
# Usage: scripts/fuzz.sh [--seconds N] [--jobs J] [--build DIR] [TARGET...]
#   (defaults: 30 s, 1 target at a time, build-fuzz, all; --jobs 2 runs two targets side by side)
# A crash found: copy the artifact into tests/fuzz/regressions/<t>/ with a name that says what it
# is, fix the code, and the normal test suite replays it from then on (fuzz_<t>).
set -eu
cd "$(dirname "$0")/.."
src=$(pwd)
seconds=30
jobs=1
build=build-fuzz
targets=""
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        -h|--help) sed -n '3,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
        -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
        *) targets="$targets $1"; shift ;;
    esac
done
[ -n "$targets" ] || targets="config poses_csv scene_csv query_csv mesh_read mesh_chain"
command -v clang >/dev/null || { echo "fuzz.sh: clang is not installed (scripts/install-deps.sh installs it)" >&2; exit 2; }
if [ ! -f "$build/build.ninja" ]; then
    # The setup's output is shown only when it fails (a temporary file: nothing left in the checkout).
    log=$(mktemp)
    CC=clang CXX=clang++ meson setup "$build" -Dfuzz=true -Db_sanitize=address,undefined \
        -Dbuildtype=debugoptimized -Db_lundef=false >"$log" 2>&1 ||
        { cat "$log" >&2; rm -f "$log"; exit 1; }
    rm -f "$log"
fi
programs=""
for t in $targets; do programs="$programs tests/fuzz/fuzz_$t"; done
# shellcheck disable=SC2086
meson compile -C "$build" $programs >/dev/null

# An Assimp reader that hangs is stopped by cdlab's own deadline (an error, not a finding);
# libFuzzer's -timeout catches a hang anywhere else. The readers take paths, so each input is
# written to a file: in memory (/dev/shm) where there is one, 15 times the inputs per second.
export CDLAB_MESH_READ_TIMEOUT=1
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# One target's run: its summary line in $work/summary, its status in $work/status.
fuzz_one() {
    t=$1
    work="$build/fuzz/$t"
    mkdir -p "$work/corpus" "$work/artifacts"
    for d in "$src/tests/fuzz/corpus/$t" "$src/tests/fuzz/regressions/$t"; do
        [ -d "$d" ] && cp "$d"/* "$work/corpus/" 2>/dev/null || true
    done
    log="$work/fuzz.log"
    : >"$work/.started"  # findings of earlier runs stay in artifacts/; count only this run's
    set +e
    "$build/tests/fuzz/fuzz_$t" "$work/corpus" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
        -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$work/artifacts/" >"$log" 2>&1
    rc=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    found=$(find "$work/artifacts" -type f -newer "$work/.started" | wc -l)
    echo "fuzz $t: ${runs:-?} inputs in ${seconds} s (${speed:-?}/s), exit $rc, $found finding(s)" >"$work/summary"
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
        { grep -m 5 -E 'ERROR|SUMMARY|runtime error' "$log" || true
          echo "  log: $log; inputs: $work/artifacts/"; } >>"$work/summary"
        echo 1 >"$work/status"
    else
        echo 0 >"$work/status"
    fi
}

# The targets in batches of $jobs, each batch side by side.
status=0
set -- $targets
while [ $# -gt 0 ]; do
    batch=""
    k=0
    while [ $# -gt 0 ] && [ "$k" -lt "$jobs" ]; do
        fuzz_one "$1" &
        batch="$batch $1"
        k=$((k + 1))
        shift
    done
    wait
    for t in $batch; do
        cat "$build/fuzz/$t/summary"
        [ "$(cat "$build/fuzz/$t/status")" = 0 ] || status=1
    done
done
exit $status
