#!/bin/sh
# SPDX-License-Identifier: MIT
# The bodies kind's model_ms = Nv·Cv + Np·Cp + Nu·Cu: a term whose count is 0 is 0, also when its
# unit cost could not be measured (NA). Scenes where no bodies touch (a few large bodies among
# small ones, far apart) have Nv = Np = 0 and no Cv or Cp: deformed, model_ms is Nu·Cu alone (it
# was NA); undeformed, Nu = 0 too, cu_ns is NA and model_ms 0. A dense scene whose bodies touch
# has every term, and model_ms is their sum.
# usage: bodies_model.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }

cat >apart.ini <<'INI'
[experiment]
name = apart
kind = bodies
warmup = 1
frames = 2
repeats = 1
[scene]
bodies = 20
[bodies]
meshes = icosphere:80
deform = 1, 0
size_ratio = 100
size_dist = pareto
[run]
pin = off
cpu = -1
counters =
INI
sed -e 's/^name = apart/name = dense/' -e 's/^deform = .*/deform = 0.05/' -e 's/^size_ratio = .*/density = 0.3/' \
    -e '/^size_dist/d' apart.ini >dense.ini
for c in apart dense; do
    "$cdlab" run --quiet --output out --run-id x $c.ini >/dev/null 2>err.txt || fail "$c: $(cat err.txt)"
done
# The columns of each summary row: deform bv_tests_mean tri_tests_mean cv_ns cp_ns nu_mean cu_ns model_ms
cols() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
        { print $h["deform"], $h["bv_tests_mean"], $h["tri_tests_mean"], $h["cv_ns"], $h["cp_ns"], $h["nu_mean"],
                $h["cu_ns"], $h["model_ms"] }' "$1"
}
cols out/apart/x/summary.csv >apart.txt
# model_ms against the terms, the terms whose count is 0 left out: within 1e-5 relative (the
# cells are printed with 6 significant digits or more).
check() {
    awk -v what="$1" '{
        model = 0
        if ($2 != 0) model += $2 * $4
        if ($3 != 0) model += $3 * $5
        if ($6 != 0) model += $6 * $7
        model *= 1e-6
        if ($8 == "NA" || $8 - model > 1e-5 * model + 1e-12 || model - $8 > 1e-5 * model + 1e-12) {
            print "FAIL: " what ": model_ms " $8 ", expected " model " from: " $0; bad = 1
        }
    } END { exit bad }' "$2" || exit 1
}
awk '$1 == 1 && $2 == 0 && $3 == 0 && $4 == "NA" && $5 == "NA" && $6 > 0 && $7 != "NA" { ok = 1 } END { exit !ok }' apart.txt ||
    fail "apart, deform 1: expected Nv = Np = 0, Cv and Cp NA, Nu > 0: $(cat apart.txt)"
awk '$1 == 0 && $6 == 0 && $7 == "NA" && $8 == 0 { ok = 1 } END { exit !ok }' apart.txt ||
    fail "apart, deform 0: expected Nu = 0, cu_ns NA, model_ms 0: $(cat apart.txt)"
check apart apart.txt
echo "ok: no bodies touch: model_ms = Nu·Cu deformed, 0 undeformed: $(tr '\n' ';' <apart.txt)"
cols out/dense/x/summary.csv >dense.txt
awk '$2 > 0 && $3 > 0 && $4 != "NA" && $5 != "NA" && $6 > 0 { ok = 1 } END { exit !ok }' dense.txt ||
    fail "dense: expected every term: $(cat dense.txt)"
check dense dense.txt
echo "ok: bodies touch: model_ms = Nv·Cv + Np·Cp + Nu·Cu: $(cat dense.txt)"
exit 0
