#!/bin/sh
# SPDX-License-Identifier: MIT
# Output errors are errors: every command whose standard output is /dev/full exits 1 with
# "write error: <cause>" on stderr; a file that cannot be written whole (here: ulimit -f, with
# SIGXFSZ at its default action or ignored), named or standard output, is a write error that names
# its cause and leaves an existing file as it was; an output path that cannot be created (a missing
# directory, a path through a regular file, a link loop) exits 1, query's and trace export's
# before they read their input; an output path (-o, --out, an output argument) that is a device, a
# FIFO, a directory, empty, a file descriptor's path or the file standard output or error is open
# on is refused with exit 2 and left as it was, never replaced by a regular file.
# usage: output_errors.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
fail=0
"$cdlab" run --quiet --output "$tmp" --run-id a "$fix/tiny.ini" >/dev/null 2>&1 || { echo "FAIL: setup run"; exit 1; }
cp -r tiny/a tiny/b
gp=0
command -v gnuplot >/dev/null 2>&1 && gp=1

full() {  # full NAME ARGS...: the command with stdout on /dev/full must exit 1 with a write error
    name=$1
    shift
    "$@" >/dev/full 2>err
    rc=$?
    if [ "$rc" -ne 1 ] || ! grep -q "write error: No space left on device" err; then
        echo "FAIL $name >/dev/full: exit $rc, stderr: $(cat err)"; fail=1
    else
        echo "ok $name >/dev/full: exit 1, $(grep 'write error' err)"
    fi
}
full help "$cdlab" help
full --help "$cdlab" --help
full version "$cdlab" version
full methods "$cdlab" methods
full info "$cdlab" info
full query "$cdlab" query tri-tri "$fix/query/tri_tri.csv"
full "run --keys" "$cdlab" run --keys
full "run --dry-run" "$cdlab" run --dry-run "$fix/tiny.ini"
full run "$cdlab" run --quiet --output "$tmp/full" "$fix/tiny.ini"
full compare "$cdlab" compare tiny/a tiny/b
full verify "$cdlab" verify --method grid --scenes 2 --poses 2
full "run --help" "$cdlab" run --help
if [ "$gp" = 1 ]; then
    full snapshot "$cdlab" snapshot --point 0 --frame 1 -o "$tmp/snap" "$fix/tiny.ini"
    full report "$cdlab" report -o "$tmp/rep.html" tiny/a
fi

# A file size limit (ulimit -f 1: 1 KiB, so a part is written first) is a write error like any
# other, whether SIGXFSZ is at its default action (cdlab ignores it then: it once ended the command
# with a 1 KiB .cdlab-out.XXXXXX left and nothing said, exit 153) or ignored by the caller: exit 1
# with "FILE: write error: File too large" for a file output, an existing file keeping its
# content and no temporary file left beside it (tests/cli/output_full.sh does the same on a full
# disk), and "cdlab: write error: File too large" for standard output on a file.
# stderr goes through a pipe, which the file size limit does not cover.
yes 0,0,0,1,2,0,0,1 | head -n 5000 >many.csv
over_limit() {  # over_limit NAME WANT ARGS...: cdlab ARGS, stdout on so.csv, under ulimit -f 1
    name=$1 want=$2
    shift 2
    for xfsz in default ignore; do
        echo old >q.csv
        (ulimit -f 1; env --$xfsz-signal=XFSZ "$cdlab" "$@" 2>&1 >so.csv; echo "exit $?") | cat >err
        if ! grep -q "^exit 1$" err || ! grep -qF "$want" err; then
            echo "FAIL $name over ulimit -f, SIGXFSZ $xfsz: $(cat err)"; fail=1
        elif [ "$(cat q.csv)" != old ] || [ -n "$(ls -A | grep '^\.cdlab-out\.')" ]; then
            echo "FAIL $name over ulimit -f, SIGXFSZ $xfsz: q.csv now $(head -c 40 q.csv), left: $(ls -A)"; fail=1
        else
            echo "ok $name over ulimit -f, SIGXFSZ $xfsz: $(grep -v '^exit' err)"
        fi
        rm -f .cdlab-out.*
    done
}
over_limit "query --out" "q.csv: write error: File too large" query sphere-sphere many.csv --out q.csv
over_limit poses "q.csv: write error: File too large" poses --poses 1000 q.csv
over_limit "query >FILE" "cdlab: write error: File too large" query sphere-sphere many.csv
over_limit "poses - >FILE" "cdlab: write error: File too large" poses --poses 1000 -

# Output targets that are not regular files: refused, exit 2, left as they were.
mkfifo fifo
mkdir dir
target() {  # target NAME PATH ARGS...
    name=$1 path=$2
    shift 2
    before=$(ls -ld "$path" | cut -c1)
    "$@" >out 2>err
    rc=$?
    after=$(ls -ld "$path" | cut -c1)
    if [ "$rc" -ne 2 ] || [ "$before" != "$after" ] || ! grep -q "expected a regular file or a new path" err; then
        echo "FAIL $name -> $path: exit $rc, type $before -> $after, $(cat err)"; fail=1
    else
        echo "ok $name -> $path: $(cat err)"
    fi
}
target "query --out" fifo "$cdlab" query tri-tri "$fix/query/tri_tri.csv" --out fifo
target "query --out" /dev/null "$cdlab" query tri-tri "$fix/query/tri_tri.csv" --out /dev/null
target "query --out" dir "$cdlab" query tri-tri "$fix/query/tri_tri.csv" --out dir
target poses fifo "$cdlab" poses --poses 3 fifo
target "report -o" fifo "$cdlab" report -o fifo tiny/a
target "report -o" /dev/null "$cdlab" report -o /dev/null tiny/a
target "report -o" dir "$cdlab" report -o dir tiny/a
# An output path that cannot be written (no such directory): exit 1, as for a full disk, from
# every command alike.
nodir() {  # nodir NAME PATH ARGS...
    name=$1 path=$2
    shift 2
    "$@" >out 2>err
    rc=$?
    if [ "$rc" -ne 1 ] || ! grep -qF "$path: cannot write: No such file or directory" err || [ -e nodir ]; then
        echo "FAIL $name $path: exit $rc, $(cat err)"; fail=1
    else
        echo "ok $name $path: exit 1, $(cat err)"
    fi
}
nodir "report -o" nodir/rep.html "$cdlab" report -o nodir/rep.html tiny/a
nodir "query --out" nodir/q.csv "$cdlab" query tri-tri "$fix/query/tri_tri.csv" --out nodir/q.csv
nodir poses nodir/p.csv "$cdlab" poses --poses 3 nodir/p.csv
# The same for a path through a regular file (ENOTDIR) and a symbolic link loop (ELOOP): the same
# "cannot write" once gave exit 2 for these, found before the file was made.
touch afile
ln -s loop loop
unwritable() {  # unwritable NAME PATH CAUSE ARGS...
    name=$1 path=$2 cause=$3
    shift 3
    "$@" >out 2>err
    rc=$?
    if [ "$rc" -ne 1 ] || ! grep -qF "$path: cannot write: $cause" err || [ -s afile ] || [ ! -L loop ]; then
        echo "FAIL $name $path: exit $rc, $(cat err)"; fail=1
    else
        echo "ok $name $path: exit 1, $(cat err)"
    fi
}
for path in afile/x loop; do
    cause="Not a directory"
    [ $path = loop ] && cause="Too many levels of symbolic links"
    unwritable poses $path "$cause" "$cdlab" poses --poses 3 $path
    unwritable "query --out" $path "$cause" "$cdlab" query tri-tri "$fix/query/tri_tri.csv" --out $path
    unwritable "report -o" $path "$cause" "$cdlab" report -o $path tiny/a
    unwritable "trace import -o" $path "$cause" "$cdlab" trace import -o $path "$fix/query/tri_tri.csv"
done
# query checks --out before it reads: with a FIFO input that a writer holds open but never writes
# to, it answers at once (it once read the input first, here until timeout ended it: exit 124).
mkfifo never
before_input() {  # before_input NAME RC PHRASE OUT
    sleep 30 >never &
    writer=$!
    timeout 10 "$cdlab" query tri-tri never --out "$4" >out 2>err
    rc=$?
    kill $writer 2>/dev/null
    wait $writer 2>/dev/null
    if [ "$rc" -ne "$2" ] || ! grep -qF "$3" err; then
        echo "FAIL query --out $4 before reading the input: exit $rc, $(cat err)"; fail=1
    else
        echo "ok query --out $4 $1 before the input is read: exit $rc, $(cat err)"
    fi
}
before_input "cannot be written" 1 "nodir/q.csv: cannot write: No such file or directory" nodir/q.csv
before_input refused 2 "dir is a directory" dir
# trace export checks -o as query does, before it opens its input: with a trace that does not
# exist, a bad -o is what the message is about (it once named the missing trace, exit 2, and
# never said the output was bad), and nothing is written.
export_first() {  # export_first NAME RC PHRASE ARGS...: trace export of missing.trace with ARGS
    name=$1 want=$2 phrase=$3
    shift 3
    "$cdlab" trace export missing.trace "$@" >out 2>err
    rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -qF -- "$phrase" err || grep -q missing.trace err || [ -s out ] ||
        [ -n "$(ls -A . dir | grep '^\.cdlab-out\.')" ]; then
        echo "FAIL trace export $name before its input: exit $rc, $(cat err)"; fail=1
    else
        echo "ok trace export $name before its input: exit $rc, $(cat err)"
    fi
}
export_first "-o dir" 2 "dir is a directory" -o dir
export_first "-o nodir/e.csv" 1 "nodir/e.csv: cannot write: No such file or directory" -o nodir/e.csv
export_first "-o /dev/stdout" 2 "names a file descriptor" -o /dev/stdout
export_first "-o ''" 2 "'': expected" -o ''
export_first "without -o" 2 "no -o FILE given"
# trace import and trace record make their output before they read or run anything: with -o in a
# directory that does not exist, the message is about -o, not about the input (a FIFO, which import
# refuses, or a missing config): both once named their input, exit 2, and said nothing of -o until
# frame 0 had been read or the config's scene run.
output_first() {  # output_first NAME ARGS...: exit 1 about nodir/t.trace, nothing written
    name=$1
    shift
    sleep 30 >never &
    writer=$!
    timeout 10 "$cdlab" trace "$@" >out 2>err
    rc=$?
    kill $writer 2>/dev/null
    wait $writer 2>/dev/null
    if [ "$rc" -ne 1 ] || ! grep -qF "nodir/t.trace: cannot write: No such file or directory" err ||
        grep -q "missing.ini" err || [ -e nodir ]; then
        echo "FAIL trace $name: -o before the input: exit $rc, $(cat err)"; fail=1
    else
        echo "ok trace $name: -o before the input: exit $rc, $(cat err)"
    fi
}
output_first import import -o nodir/t.trace never
output_first record record missing.ini -o nodir/t.trace
# An empty output path is refused before any work (poses once computed every pose, then failed
# to rename its temporary file to "", exit 1).
"$cdlab" poses --poses 3 '' >out 2>err
rc=$?
if [ "$rc" -ne 2 ] || ! grep -qF "cdlab poses: '': expected a file path, not empty" err ||
    [ -n "$(ls -A | grep '^\.cdlab-out\.')" ]; then
    echo "FAIL poses '': exit $rc, $(cat err)"; fail=1
else
    echo "ok poses '': $(cat err)"
fi

# A path that is this command's standard output or error (/dev/stdout, /dev/stderr, /dev/fd/N,
# /proc/self/fd/N, a link to one, or the very file the shell appends to) is refused with exit 2
# and says to write "-": the finished file renamed over it replaced the file the shell had opened
# (`>> log` lost its old lines, and what the shell wrote after). Where "-" is no standard output
# (report -o), the message says so.
ln -s /dev/stdout tostdout
stdpath() {  # stdpath NAME PHRASE STREAM ARGS...: ARGS with stream STREAM (1 or 2) appended to log
    name=$1 phrase=$2 stream=$3
    shift 3
    echo "previous line" >log
    : >err
    if [ "$stream" = 1 ]; then
        ("$@" 2>err; echo "exit $?" >rc; echo after) >>log
    else
        ("$@" >out 2>>log; echo "exit $?" >rc; echo after >>log)
    fi
    if [ "$(cat rc)" != "exit 2" ] || [ "$(head -n 1 log)" != "previous line" ] || [ "$(tail -n 1 log)" != after ] ||
        ! cat err log | grep -qF -- "$phrase"; then
        echo "FAIL $name (fd $stream appended to log): $(cat rc), log: $(head -c 300 log), stderr: $(cat err)"; fail=1
    else
        echo "ok $name: $(cat rc), log kept, $(cat err log | grep -F -- "$phrase")"
    fi
}
dash="write - for standard output"
stdpath "poses /dev/stdout" "$dash" 1 "$cdlab" poses --poses 2 /dev/stdout
stdpath "poses /proc/self/fd/1" "$dash" 1 "$cdlab" poses --poses 2 /proc/self/fd/1
stdpath "poses /dev/fd/1" "$dash" 1 "$cdlab" poses --poses 2 /dev/fd/1
stdpath "poses tostdout (a link to /dev/stdout)" "$dash" 1 "$cdlab" poses --poses 2 tostdout
stdpath "poses log >> log" "log is this command's standard output" 1 "$cdlab" poses --poses 2 log
stdpath "query --out /dev/stderr" "$dash" 2 "$cdlab" query sphere-sphere "$fix/query/sphere_sphere.csv" \
    --out /dev/stderr
stdpath "query --out log 2>> log" "log is this command's standard error" 2 "$cdlab" query sphere-sphere \
    "$fix/query/sphere_sphere.csv" --out log
"$cdlab" trace record "$fix/tiny.ini" -o tiny.trace >/dev/null 2>&1 || { echo "FAIL trace record tiny.ini"; fail=1; }
stdpath "trace export -o /dev/stdout" "$dash" 1 "$cdlab" trace export -o /dev/stdout tiny.trace
stdpath "report -o /dev/stdout" "expected a file path (this output cannot go to standard output)" 1 \
    "$cdlab" report -o /dev/stdout tiny/a
rm -f err
mkfifo stem.svg
target "snapshot -o" stem.svg "$cdlab" snapshot --point 0 --frame 1 -o stem "$fix/tiny.ini"
[ -e stem.png ] && { echo "FAIL snapshot wrote stem.png beside a refused stem.svg"; fail=1; }

# Where fopen(path, "w") would write, and only there: through a dangling symbolic link to the file
# it names (the link stays a link), under a name near NAME_MAX, and not over a read-only file of
# another user's making (as a user without root's override; the temporary file and the rename
# would need only the directory).
"$cdlab" query tri-tri "$fix/query/tri_tri.csv" >want.csv
ln -s answers.csv dangling
"$cdlab" query tri-tri "$fix/query/tri_tri.csv" --out dangling >/dev/null 2>err
if [ ! -L dangling ] || ! cmp -s answers.csv want.csv; then
    echo "FAIL query --out a dangling link: link $(ls -l dangling), answers.csv $(head -c 40 answers.csv 2>&1)"; fail=1
else
    echo "ok query --out through a dangling link writes the file it names"
fi
long=$(printf '%0250d' 0).csv
if ! "$cdlab" query tri-tri "$fix/query/tri_tri.csv" --out "$long" 2>err || ! cmp -s "$long" want.csv; then
    echo "FAIL query --out a 254-byte name: $(cat err)"; fail=1
else
    echo "ok query --out a 254-byte name"
fi
# A signal that ends a command writing its output removes the temporary file: trace export of
# 2 000 boxes x 600 frames (1.2 M rows) is stopped by SIGINT, then SIGTERM, as soon as its temporary
# file appears; it leaves neither that file nor the target.
printf '[experiment]\nwarmup = 0\nframes = 599\nrepeats = 1\n[scene]\ncubes = 2000\n[method]\nmethod = grid\n' >big.ini
if "$cdlab" trace record big.ini -o big.trace >/dev/null 2>err; then
    for sig in INT TERM; do
        mkdir -p sig && rm -f sig/* sig/.cdlab-out.*
        # A background job of a shell without job control starts with SIGINT ignored: reset it.
        env --default-signal=INT "$cdlab" trace export big.trace -o sig/big.csv 2>err &
        pid=$!
        n=0
        while [ -z "$(ls -A sig)" ] && [ $n -lt 1000 ]; do sleep 0.01; n=$((n + 1)); done
        kill -$sig $pid
        wait $pid
        rc=$?
        if [ $rc -eq 0 ]; then
            echo "skip: trace export finished before SIG$sig reached it"
        elif [ -n "$(ls -A sig)" ]; then
            echo "FAIL SIG$sig during trace export left $(ls -A sig)"; fail=1
        else
            echo "ok SIG$sig during trace export: exit $rc, nothing left beside the target"
        fi
    done
else
    echo "FAIL trace record big.ini: $(cat err)"; fail=1
fi
nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# The input is copied beside the output: the checkout may lie under a directory nobody cannot enter.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && nobody "$cdlab" version >/dev/null 2>&1; then
    mkdir ro && echo old >ro/prot.csv && chmod 444 ro/prot.csv && cp "$fix/query/tri_tri.csv" ro/in.csv &&
        chmod 644 ro/in.csv && chmod 777 ro && chmod o+x "$tmp"
    nobody "$cdlab" query tri-tri ro/in.csv --out ro/prot.csv >/dev/null 2>err
    rc=$?
    if [ "$rc" -ne 1 ] || [ "$(cat ro/prot.csv)" != old ] || ! grep -q "prot.csv: cannot write: Permission denied" err ||
        [ -n "$(ls -A ro | grep -v -e '^prot.csv$' -e '^in.csv$')" ]; then
        echo "FAIL query --out a read-only file as nobody: exit $rc, prot.csv $(head -c 40 ro/prot.csv), $(cat err)"; fail=1
    else
        echo "ok query --out a read-only file refused as fopen refused it: $(cat err)"
    fi
else
    echo "skip: the read-only case needs root and a cdlab that nobody may run"
fi
exit $fail
