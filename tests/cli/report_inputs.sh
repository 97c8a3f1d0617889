#!/bin/sh
# SPDX-License-Identifier: MIT
# What `cdlab report` takes from its inputs. A run directory whose path holds control characters
# and bytes that are not UTF-8 (a stray continuation byte, an overlong form, a surrogate, U+FFFF,
# a cut sequence), and a reference file whose title and labels hold such bytes (gnuplot copies them
# into the SVG the page inlines), still give a well-formed UTF-8 page (`xmllint --noout`): each
# such byte or character is U+FFFD there, and well-formed UTF-8 (é) is kept. The reference results
# are by default experiments/reference beside the plots' directory, as --help says: the shipped
# ones for the shipped scripts, alt/experiments/reference for --plots alt/plots (also written
# alt/plots/, through $CDLAB_PLOTS, or as "." from within it). Only what is a PNG is embedded as
# one: a scene picture snapshot_*.png that is not is left out with a warning (in the page and on
# stderr), as is a figure whose script exits 0 without writing a PNG; a reference script that
# writes no SVG fails the page (exit 1, no file).
# Skips (77) without gnuplot; fails without xmllint (scripts/install-deps.sh installs it).
# usage: report_inputs.sh CDLAB FIXTURE_DIR
set -u
src=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
. "$(dirname "$0")/lib.sh"
command -v gnuplot >/dev/null 2>&1 || { echo "skip: no gnuplot"; exit 77; }
command -v xmllint >/dev/null 2>&1 || { echo "FAIL: no xmllint (libxml2-utils; scripts/install-deps.sh installs it)"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }
fffd=$(printf '\357\277\275')

cat >t.ini <<'INI'
[experiment]
name = t
kind = tri_tri
seed = 7
warmup = 0
frames = 1
repeats = 1
[tri_tri]
workload = random
algorithm = exact, gd
a_over_h = 1e-3, 1e-1
pairs = 300
[run]
pin = off
counters =
INI

# Control characters, then: a continuation byte alone, an overlong '/', a surrogate, U+FFFF, a
# sequence cut by the next character; é is well-formed.
odd=$(printf 'r\001\002\r\033\177 \200 \300\257 \355\240\200 \357\277\277 \342\202x \303\251')
"$cdlab" run --quiet --output "$odd" --run-id r t.ini >/dev/null 2>err || fail "run: $(cat err)"
mkdir ref
printf '# title: Odd \001 title \376\377 \303\251\n# source: here \002\n# experiments: t\n# plot: bars\ncase,ops\na\001\377,1\nb,2\n' >ref/odd.csv
"$cdlab" report --reference ref -o page.html "$odd/t/r" >/dev/null 2>err || fail "report: $(cat err)"
xmllint --noout page.html 2>err || fail "the page is not well-formed: $(head -n 3 err)"
grep -q '<svg' page.html || fail "the reference is not drawn"
grep -q "r$fffd$fffd$fffd$fffd" page.html || fail "the control characters are not U+FFFD"
grep -q "$fffd $fffd$fffd $fffd$fffd$fffd $fffd$fffd$fffd $fffd$fffd""x $(printf '\303\251')" page.html ||
    fail "the bytes that are not UTF-8 are not one U+FFFD each"
grep -q "Odd $fffd title $fffd$fffd $(printf '\303\251')" page.html || fail "the reference's title is not cleaned"
echo "ok: a path and a reference with control characters and bytes that are not UTF-8 give a well-formed page"

# The default reference directory: beside the plots' directory.
sed 's/^name = t$/name = tri_tri_ops/' t.ini >ops.ini
"$cdlab" run --quiet --output res --run-id r ops.ini >/dev/null 2>err || fail "run: $(cat err)"
mkdir -p alt/experiments/reference
cp -r "$src/plots" alt/plots
printf '# title: MY CUSTOM REFERENCE\n# source: me\n# experiments: tri_tri_ops\n# plot: none\nlabel,value\na,1\n' \
    >alt/experiments/reference/custom.csv
shipped="The seed's result: Arithmetic operations of the plane-first"
custom="The seed's result: MY CUSTOM REFERENCE"
"$cdlab" report -o default.html res/tri_tri_ops/r >/dev/null 2>err || fail "report: $(cat err)"
grep -q "$shipped" default.html && ! grep -q "$custom" default.html ||
    fail "the default reference results are not the shipped ones"
for how in "--plots alt/plots" "--plots alt/plots/" "CDLAB_PLOTS=alt/plots" "cd=alt/plots --plots ."; do
    case $how in
    CDLAB_PLOTS=*) CDLAB_PLOTS=${how#CDLAB_PLOTS=} "$cdlab" report -o "$tmp/alt.html" res/tri_tri_ops/r >/dev/null 2>err ;;
    cd=*) (cd alt/plots && "$cdlab" report --plots . -o "$tmp/alt.html" "$tmp/res/tri_tri_ops/r") >/dev/null 2>err ;;
    *) # shellcheck disable=SC2086
        "$cdlab" report $how -o "$tmp/alt.html" res/tri_tri_ops/r >/dev/null 2>err ;;
    esac || fail "report $how: $(cat err)"
    grep -q "$custom" alt.html && ! grep -q "$shipped" alt.html ||
        fail "report $how: the reference results are not alt/experiments/reference"
done
echo "ok: the reference results are experiments/reference beside the plots' directory"

# Files that are not what their names say.
cp -r res/tri_tri_ops/r snaps
"$cdlab" plot snaps >/dev/null 2>err || fail "plot: $(cat err)"
cp snaps/tri_tri_ops.png snaps/snapshot_a.png
echo hello >snaps/snapshot_z.png
"$cdlab" report --no-reference -o snaps.html snaps >/dev/null 2>err || fail "report of snapshot files: $(cat err)"
n=$(grep -o '<figure class="fig">' snaps.html | wc -l)
[ "$n" -eq 2 ] || fail "$n figures with one scene picture that is not a PNG, expected 2 (tri_tri_ops, snapshot_a)"
! grep -q 'base64,aGVsbG8' snaps.html || fail "a snapshot_*.png that is not a PNG is embedded as one"
grep -q 'snapshot_z.png is not a PNG; left out' err && grep -q 'Scene picture snapshot_z.png is not a PNG' snaps.html ||
    fail "no warning for a snapshot_*.png that is not a PNG: $(cat err)"
mkdir fake
cp alt/plots/*.gp fake/
printf 'set terminal dumb\nset output ARG2.".png"\nplot x\n' >fake/tri_tri_ops.gp
rm -f snaps/tri_tri_ops.png
"$cdlab" report --plots fake --no-reference -o fake.html snaps >/dev/null 2>err || fail "report: $(cat err)"
grep -q 'Figure tri_tri_ops could not be drawn' fake.html || fail "a figure drawn as no PNG is embedded as one"
printf 'set terminal dumb\nset output ARG2\nplot x\n' >fake/reference.gp
"$cdlab" report --plots fake --reference "$src/experiments/reference" -o ref.html res/tri_tri_ops/r >/dev/null 2>err
rc=$?
[ "$rc" -eq 1 ] && [ ! -e ref.html ] && grep -q 'wrote no SVG' err ||
    fail "a reference drawn as no SVG: exit $rc, $(cat err)"
echo "ok: only a PNG is embedded as one, only an SVG inlined"
