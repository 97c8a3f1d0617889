#!/bin/sh
# SPDX-License-Identifier: MIT
# A terminating signal leaves no scratch directory: `cdlab plot` (RUN_DIR/.cdlab-plot.XXXXXX),
# `cdlab report` and `cdlab snapshot` (TMPDIR/cdlab-report-XXXXXX, cdlab-snapshot-XXXXXX) stopped
# by SIGINT, SIGTERM or SIGHUP while gnuplot draws into their scratch directory end by that
# signal, and the directory, the files gnuplot had written there and the report's temporary page
# are gone; the figures plot would have replaced are as they were. A stand-in gnuplot (first on
# PATH) writes its files into the scratch directory, says where, and waits. And on the normal
# path, a gnuplot that leaves an empty folder in the scratch directory beside its figures: plot
# and report still remove the directory.
# usage: scratch_signals.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }

"$cdlab" run --quiet --output runs --run-id r "$fix/tiny.ini" >/dev/null 2>err.txt || fail "run: $(cat err.txt)"
run=runs/tiny/r
mkdir bin scratch
# gnuplot -c SCRIPT ARG1 STEM ...: the three commands pass the output's stem as the fourth word.
cat >bin/gnuplot <<'SH'
#!/bin/sh
stem=$4
for ext in png pdf svg; do echo drawing >"$stem.$ext"; done
echo "$$ $stem" >"$GNUPLOT_READY.part" && mv "$GNUPLOT_READY.part" "$GNUPLOT_READY"
exec sleep 60
SH
chmod +x bin/gnuplot
echo old >"$run/fps_vs_cubes.png"

# stop SIGNAL NAME ARGS...: start cdlab ARGS, wait until the stand-in draws, send SIGNAL to cdlab
# alone; cdlab must end by it, and the stand-in's directory must be gone.
stop() {
    sig=$1 name=$2
    shift 2
    rm -f ready
    # A background job of a shell without job control starts with SIGINT ignored: reset it.
    PATH="$tmp/bin:$PATH" GNUPLOT_READY="$tmp/ready" TMPDIR="$tmp/scratch" env --default-signal=INT \
        "$cdlab" "$@" >/dev/null 2>err.txt &
    pid=$!
    n=0
    until [ -f ready ] || [ $n -ge 200 ]; do sleep 0.05; n=$((n + 1)); done
    [ -f ready ] || { kill -9 $pid 2>/dev/null; fail "$name: the stand-in gnuplot never started: $(cat err.txt)"; }
    read -r gp stem <ready
    dir=$(dirname "$stem")
    [ -f "$stem.png" ] || fail "$name: the stand-in wrote no file into $dir"
    kill -s "$sig" $pid
    wait $pid
    rc=$?
    kill -9 "$gp" 2>/dev/null
    case $sig in HUP) want=129 ;; INT) want=130 ;; TERM) want=143 ;; esac
    [ $rc -eq $want ] || fail "$name: exit $rc after SIG$sig, expected $want: $(cat err.txt)"
    [ ! -e "$dir" ] || fail "$name: SIG$sig left its scratch directory: $(ls -A "$dir")"
    echo "ok: $name stopped by SIG$sig leaves no scratch directory"
}

stop INT "plot" plot "$run"
[ "$(cat "$run/fps_vs_cubes.png")" = old ] || fail "an interrupted plot replaced a figure"
[ -z "$(find "$run" -name '.cdlab-*')" ] || fail "plot left $(find "$run" -name '.cdlab-*')"
stop TERM "report" report -o page.html "$run"
[ ! -e page.html ] && [ -z "$(find . -maxdepth 1 -name '.cdlab-out.*')" ] ||
    fail "an interrupted report left its page or its temporary file: $(ls -A)"
stop HUP "snapshot" snapshot --where cubes=120 --frame 2 -o snap "$fix/tiny.ini"
[ ! -e snap.png ] && [ ! -e snap.svg ] || fail "an interrupted snapshot left a picture"
[ -z "$(ls -A scratch)" ] || fail "scratch directories left under TMPDIR: $(ls -A scratch)"

# The normal path: a stand-in that draws a PNG, a PDF and an SVG and leaves an empty folder.
mkdir bin2
cat >bin2/gnuplot <<'SH'
#!/bin/sh
stem=$4
mkdir "$(dirname "$stem")/sub"
printf '\211PNG\r\n\032\nrest' >"$stem.png"
printf '%%PDF-1.4\n' >"$stem.pdf"
printf '<svg xmlns="http://www.w3.org/2000/svg"/>\n' >"$stem.svg"
SH
chmod +x bin2/gnuplot
PATH="$tmp/bin2:$PATH" "$cdlab" plot "$run" >/dev/null 2>err.txt || fail "plot with a folder in its scratch: $(cat err.txt)"
[ -z "$(find "$run" -name '.cdlab-*')" ] || fail "plot left $(find "$run" -name '.cdlab-*')"
rm -f "$run"/*.png
PATH="$tmp/bin2:$PATH" TMPDIR="$tmp/scratch" "$cdlab" report -o page.html "$run" >/dev/null 2>err.txt ||
    fail "report with a folder in its scratch: $(cat err.txt)"
[ -z "$(ls -A scratch)" ] || fail "report left under TMPDIR: $(ls -A scratch)"
echo "ok: a folder gnuplot left in the scratch directory goes with it"
