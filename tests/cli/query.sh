#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab query`: each query/<kind>.csv must give exactly query/<kind>.expected (with --explain when
# the expected file has a decided_by column); each query/bad/*.csv must exit 2 with "file:line:" and
# the phrase from its first line ("# expect: KIND LINE PHRASE") and must not create the --out file.
# usage: query.sh CDLAB FIXTURE_DIR
set -u
cdlab=$1
fix=$2/query
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for kind in tri-tri sphere-sphere sphere-obb obb-obb; do
    stem=$(echo "$kind" | tr - _)
    opt=
    head -n 1 "$fix/$stem.expected" | grep -q decided_by && opt=--explain
    if ! "$cdlab" query "$kind" "$fix/$stem.csv" $opt --out "$tmp/$stem.out" 2>"$tmp/err"; then
        echo "FAIL $kind: exit $? ($(cat "$tmp/err"))"; fail=1; continue
    fi
    if cmp -s "$tmp/$stem.out" "$fix/$stem.expected"; then
        echo "ok $kind"
    else
        echo "FAIL $kind: output differs"; diff "$fix/$stem.expected" "$tmp/$stem.out"; fail=1
    fi
done
# The three triangle algorithms agree on the fixture (plain float happens to be right on it, the rows
# near 1e200, 1e-200 and 1e-320 included: the query normalises every row first).
for algo in gd float; do
    "$cdlab" query tri-tri "$fix/tri_tri.csv" --algo "$algo" >"$tmp/algo.out" 2>&1
    "$cdlab" query tri-tri "$fix/tri_tri.csv" >"$tmp/exact.out" 2>&1
    cmp -s "$tmp/algo.out" "$tmp/exact.out" || { echo "FAIL --algo $algo differs"; fail=1; }
done
# Line ends CR LF (and a last line ended by CR alone) read as LF: the same answers, same lines,
# after a quoted last field too (the CR after its closing quote is the line's end, not the field's).
sed 's/$/\r/' "$fix/tri_tri.csv" >"$tmp/crlf.csv"
printf '0,0,0,1,2,0,0,"1"\r\n\r\n0,0,0,1,3,0,0,1\r' >"$tmp/ss_crlf.csv"
"$cdlab" query tri-tri "$tmp/crlf.csv" >"$tmp/crlf.out" 2>"$tmp/err" &&
    "$cdlab" query tri-tri "$fix/tri_tri.csv" >"$tmp/lf.out" 2>&1 && cmp -s "$tmp/crlf.out" "$tmp/lf.out" ||
    { echo "FAIL CR LF line ends: $(cat "$tmp/err")"; fail=1; }
[ "$("$cdlab" query sphere-sphere "$tmp/ss_crlf.csv" 2>&1 | tr '\n' ' ')" = "line,overlap 1,1 3,0 " ] ||
    { echo "FAIL CR LF and a last CR: $("$cdlab" query sphere-sphere "$tmp/ss_crlf.csv" 2>&1)"; fail=1; }
# A UTF-8 byte-order mark is named as such (quoted, it was an invisible character: "found '0'").
printf '\357\273\2770,0,0,1,2,0,0,1\n' >"$tmp/bom.csv"
"$cdlab" query sphere-sphere "$tmp/bom.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 2 ] || ! grep -qF "$tmp/bom.csv:1: starts with a UTF-8 byte-order mark (BOM" "$tmp/err" || [ -s "$tmp/out" ]; then
    echo "FAIL a BOM: exit $rc, $(cat "$tmp/err")"; fail=1
else
    echo "ok a BOM: $(cat "$tmp/err")"
fi
count=0
for f in "$fix"/bad/*.csv; do
    count=$((count + 1))
    set -- $(head -n 1 "$f" | sed 's/^# expect: //')
    kind=$1 line=$2
    shift 2
    phrase="$*"
    rm -f "$tmp/bad.out"
    "$cdlab" query "$kind" "$f" --out "$tmp/bad.out" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    msg=$(cat "$tmp/err")
    if [ "$rc" -ne 2 ]; then
        echo "FAIL $f: exit $rc, expected 2 ($msg)"; fail=1
    elif ! grep -qF -- "$f:$line:" "$tmp/err"; then
        echo "FAIL $f: message lacks '$f:$line:': $msg"; fail=1
    elif ! grep -qF -- "$phrase" "$tmp/err"; then
        echo "FAIL $f: message lacks '$phrase': $msg"; fail=1
    elif [ -e "$tmp/bad.out" ] || [ -s "$tmp/out" ]; then
        echo "FAIL $f: wrote output despite the bad row"; fail=1
    else
        echo "ok $f -> $msg"
    fi
done
# --algo chooses the triangle test: with another kind it is refused, not ignored.
for args in "tri-tri" "no-such-kind $fix/tri_tri.csv" "tri-tri $fix/tri_tri.csv --algo fast" "tri-tri $tmp/missing.csv" \
    "sphere-sphere $fix/sphere_sphere.csv --algo gd" "obb-obb $fix/obb_obb.csv --algo exact"; do
    "$cdlab" query $args >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || { echo "FAIL 'query $args': exit $rc, expected 2"; fail=1; }
done
[ "$count" -ge 5 ] || fail=1
exit $fail
