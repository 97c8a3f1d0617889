#!/bin/sh
# SPDX-License-Identifier: MIT
# Bounded reads: every input reader refuses a device, a directory, a file over its size limit
# (sparse files, so the test writes nothing) and a line over its length limit, and tells an
# allocation failure (ulimit -v) from an end of file; each exits 2 with the reason and the path.
# A query CSV, read a row at a time, is answered under a memory limit far below its table's size.
# A pipe is read where no regular file is needed, and a FIFO whose writer comes later is waited for.
# usage: bounded_reads.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
fail=0
refused() {  # refused NAME PHRASE CMD...: exit 2 and PHRASE on stderr, nothing on stdout
    name=$1 phrase=$2
    shift 2
    "$@" >out 2>err </dev/null
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -qF -- "$phrase" err || [ -s out ]; then
        echo "FAIL $name: exit $rc, stderr: $(cat err), stdout: $(head -c 200 out)"; fail=1
    else
        echo "ok $name: $(cat err)"
    fi
}
q=$fix/query/tri_tri.csv
refused "run /dev/zero" "/dev/zero:0: not a regular file (a character device)" "$cdlab" run /dev/zero
refused "run DIR" "$tmp:0: is a directory" "$cdlab" run "$tmp"
refused "query /dev/zero" "/dev/zero: not a regular file (a character device)" "$cdlab" query tri-tri /dev/zero
refused "query DIR" "$tmp: is a directory" "$cdlab" query tri-tri "$tmp"
printf '[experiment]\nname = p\nkind = mesh\n[mesh]\na = icosphere:80\nb = icosphere:80\nposes_file = /dev/zero\n' >pf.ini
refused "poses_file /dev/zero" "pf.ini:7: poses_file: /dev/zero: not a regular file" "$cdlab" run pf.ini
printf '[experiment]\nname = s\n[scene]\nfile = /dev/zero\n' >sf.ini
refused "[scene] file /dev/zero" "sf.ini:4: [scene] file: /dev/zero: not a regular file" "$cdlab" run sf.ini
printf '[experiment]\nname = m\nkind = mesh\n[mesh]\na = /dev/zero\nb = icosphere:80\n' >mf.ini
refused "[mesh] a /dev/zero" "mf.ini:5: mesh a: /dev/zero: not a regular file" "$cdlab" run mf.ini

# Size limits: 1 GiB for any input file, 1 MiB for a config (also read from a pipe), 64 KiB a line.
truncate -s 1025M huge.csv huge.off || { echo "skip: no sparse files"; exit 77; }
truncate -s 2M huge.ini
truncate -s 1M long.csv
refused "query over 1 GiB" "huge.csv: 1074790400 bytes, larger than the 1 GiB limit" "$cdlab" query tri-tri huge.csv
printf '[experiment]\nname = m\nkind = mesh\n[mesh]\na = huge.off\nb = icosphere:80\n' >hm.ini
refused "mesh over 1 GiB" "larger than the 1 GiB limit" "$cdlab" run hm.ini
refused "config over 1 MiB" "huge.ini:0: 2097152 bytes, larger than the 1 MiB limit" "$cdlab" run huge.ini
refused "config from a pipe over 1 MiB" "/dev/stdin:0: larger than the 1 MiB limit" \
    sh -c "cat /dev/zero 2>/dev/null | \"$cdlab\" run /dev/stdin"
refused "query line over 64 KiB" "long.csv:1: line longer than 64 KiB" "$cdlab" query tri-tri long.csv
printf '[experiment]\nname = s\n[scene]\nfile = long.csv\n' >lf.ini
refused "[scene] file line over 64 KiB" "long.csv:1: line longer than 64 KiB" "$cdlab" run lf.ini
# The limit is on the line, not its end: 64 KiB before CR LF (or LF, or a last CR) is accepted, one
# byte more is refused, for a query (read as a stream), a CSV read whole ([mesh] poses_file) and
# trace import alike. Each line below is a comment of exactly 64 KiB (or one byte more); a lone CR
# ends only a file's last line, so only the query's comment (last in its file) ends so.
line64() { head -c 65535 /dev/zero | tr '\0' x | sed 's/^/#/'; }
for end in lf crlf cr; do
    for extra in "" x; do
        case $end in lf) e='\n' ;; crlf) e='\r\n' ;; cr) e='\r' ;; esac
        { printf '0,0,0,1,2,0,0,1\n'; line64 | tr -d '\n'; printf "$extra$e"; } >"q_$end$extra.csv"
        { line64 | tr -d '\n'; printf "$extra$e"; printf 'qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,1,0,0\n'; } >"p_$end$extra.csv"
        printf '[experiment]\nname = p\nkind = mesh\n[mesh]\na = icosphere:80\nb = icosphere:80\nposes_file = p_%s.csv\n' \
            "$end$extra" >"p_$end$extra.ini"
        if [ -z "$extra" ]; then
            "$cdlab" query sphere-sphere "q_$end.csv" >out 2>err && [ "$(cat out | tr '\n' ' ')" = "line,overlap 1,1 " ] ||
                { echo "FAIL query, a line of 64 KiB ending $end: $(cat err)"; fail=1; }
            [ "$end" = cr ] || "$cdlab" run --dry-run "p_$end.ini" >out 2>err ||
                { echo "FAIL poses_file, a line of 64 KiB ending $end: $(cat err)"; fail=1; }
        else
            refused "query, 64 KiB + 1 ending $end" "q_${end}x.csv:2: line longer than 64 KiB" \
                "$cdlab" query sphere-sphere "q_${end}x.csv"
            [ "$end" = cr ] || refused "poses_file, 64 KiB + 1 ending $end" "p_${end}x.csv:1: line longer than 64 KiB" \
                "$cdlab" run --dry-run "p_${end}x.ini"
        fi
    done
done
"$cdlab" trace record "$fix/tiny.ini" -o t.trace >/dev/null 2>&1 && "$cdlab" trace export t.trace -o t.csv 2>err ||
    { echo "FAIL setup trace: $(cat err)"; fail=1; }
{ line64 | tr -d '\n'; printf '\r\n'; cat t.csv; } >t64.csv
{ line64 | tr -d '\n'; printf 'x\r\n'; cat t.csv; } >t65.csv
"$cdlab" trace import t64.csv -o t64.trace >out 2>err || { echo "FAIL trace import, a line of 64 KiB + CR LF: $(cat err)"; fail=1; }
refused "trace import, 64 KiB + 1 + CR LF" "t65.csv:1: line longer than 64 KiB" "$cdlab" trace import t65.csv -o t65.trace
echo "ok lines of 64 KiB with any line end: accepted; 64 KiB + 1: refused"

# The files of a run directory: meta.ini or frames.csv replaced by /dev/zero, or a line of 1 MiB.
"$cdlab" run --quiet --output "$tmp/runs" --run-id a "$fix/tiny.ini" >/dev/null 2>&1 || { echo "FAIL: setup run"; exit 1; }
for f in meta.ini frames.csv; do
    rm -rf runs/tiny/b
    cp -r runs/tiny/a runs/tiny/b
    ln -sf /dev/zero "runs/tiny/b/$f"
    refused "compare, $f is /dev/zero" "not a regular file (a character device)" timeout 60 "$cdlab" compare runs/tiny/a runs/tiny/b
    refused "report, $f is /dev/zero" "not a regular file (a character device)" timeout 60 "$cdlab" report -o r.html runs/tiny/b
done
rm -rf runs/tiny/b
cp -r runs/tiny/a runs/tiny/b
head -c 1048576 /dev/zero | tr '\0' x >>runs/tiny/b/meta.ini
refused "compare, a meta.ini line of 1 MiB" "line longer than 64 KiB" "$cdlab" compare runs/tiny/a runs/tiny/b

# A pipe is read like a file where no regular file is needed (a config, a query CSV).
cat "$q" | "$cdlab" query tri-tri /dev/stdin >pipe.out 2>err
"$cdlab" query tri-tri "$q" >file.out 2>&1
cmp -s pipe.out file.out || { echo "FAIL query from a pipe differs: $(cat err)"; fail=1; }
# A FIFO is waited for until its writer comes, and read to the writer's end: cdlab started on it
# first and the writer a second later answers every row (the FIFO, opened O_NONBLOCK for its type
# check, once read 0 bytes at once and the query answered nothing); a writer already waiting in
# its open when cdlab starts loses no row; a config given as a FIFO is read the same way. Each
# side runs under timeout, so a hang fails the test instead of stalling it.
# fifo_verdict WHAT: the query of the FIFO (exit rc, its writer's wrc) answered as the file did.
fifo_verdict() {
    if [ $rc -ne 0 ] || [ $wrc -ne 0 ] || ! cmp -s fifo.out file.out; then
        echo "FAIL query of a FIFO $1: exit $rc, writer exit $wrc, $(cat err)," \
            "$(($(wc -l <fifo.out) - 1)) of $(($(wc -l <file.out) - 1)) rows answered"; fail=1
    else
        echo "ok query of a FIFO $1: all $(($(wc -l <fifo.out) - 1)) rows answered"
    fi
}
mkfifo in.fifo
timeout 20 "$cdlab" query tri-tri in.fifo >fifo.out 2>err &
pid=$!
sleep 1
timeout 5 sh -c 'cat "$0" >in.fifo' "$q"
wrc=$?
wait $pid
rc=$?
fifo_verdict "whose writer came 1 s later"
timeout 20 sh -c 'cat "$0" >in.fifo' "$q" &
pid=$!
sleep 1
timeout 5 "$cdlab" query tri-tri in.fifo >fifo.out 2>err
rc=$?
wait $pid
wrc=$?
fifo_verdict "whose writer was waiting"
printf '[experiment]\nname = from_fifo\n' >fifo.ini
timeout 20 "$cdlab" run --dry-run in.fifo >fifo.out 2>err &
pid=$!
sleep 1
timeout 5 sh -c 'cat fifo.ini >in.fifo'
wrc=$?
wait $pid
rc=$?
if [ $rc -ne 0 ] || [ $wrc -ne 0 ] || ! grep -q "experiment from_fifo" fifo.out; then
    echo "FAIL run --dry-run of a FIFO whose writer came 1 s later: exit $rc, writer exit $wrc, $(cat err)"; fail=1
else
    echo "ok run --dry-run of a FIFO whose writer came 1 s later: $(head -n 1 fifo.out)"
fi

# An allocation that fails is an error, not an end of file: under a memory limit that lets the
# program start, a file larger than the limit cannot be read into memory.
address_limit
if [ -z "$lim" ]; then
    echo "skip ulimit -v: the program does not start under 512 MiB of address space (a sanitizer build?)"
else
    truncate -s $((lim * 1024)) mem.csv
    printf '[experiment]\nname = s\n[scene]\nfile = mem.csv\n' >mem.ini
    refused "[scene] file under ulimit -v $lim" "mem.csv: out of memory: cannot allocate" sh -c "ulimit -v $lim; \"$cdlab\" run mem.ini"
    # A query CSV is read a row at a time, its answers held in a few bytes a row: a valid file of
    # an eighth of the limit is answered (a table of it in memory took 30 times its size), and a
    # bad first line of such a file is reported as that line, not as an allocation failure.
    rows=$((lim * 1024 / 8 / 16))
    yes 0,0,0,1,2,0,0,1 | head -n "$rows" >big.csv
    sh -c "ulimit -v $lim; \"\$0\" query sphere-sphere big.csv" "$cdlab" >out 2>err
    rc=$?
    if [ "$rc" -ne 0 ] || [ "$(wc -l <out)" -ne $((rows + 1)) ] || [ "$(tail -n 1 out)" != "$rows,1" ]; then
        echo "FAIL query of $rows rows under ulimit -v $lim: exit $rc, $(head -c 300 err), $(wc -l <out) lines"; fail=1
    else
        echo "ok query of $rows rows ($(wc -c <big.csv) bytes) under ulimit -v $lim"
    fi
    yes 1 | head -n "$rows" >ones.csv
    refused "query, bad line 1 of $rows, under ulimit -v $lim" "ones.csv:1: expected 8 fields for sphere-sphere" \
        sh -c "ulimit -v $lim; \"$cdlab\" query sphere-sphere ones.csv"
    # A trace whose header claims 10^8 objects (a sparse 4 GB file): its buffers, sized by the
    # header, are refused as the file's error, not an abort.
    python3 -c "import struct, sys; f = open('big.trace', 'wb'); f.write(b'CDLTRACE' + struct.pack('<IIQQ6d', 1, 0, 10**8, 1, 0, 0, 0, 1, 1, 1)); f.truncate(80 + 40 * 10**8)"
    refused "trace info under ulimit -v $lim" "big.trace: 16: 100000000 objects: out of memory" sh -c "ulimit -v $lim; \"$cdlab\" trace info big.trace"
fi
exit $fail
