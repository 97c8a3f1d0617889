#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab report` in a real browser: a page of two runs (a cubes run without PNGs, so the report
# renders its figures with gnuplot, and a tri_tri run) with every reference result of
# experiments/reference/ attached to it, is well-formed XML (xmllint), loads nothing from outside,
# and in headless Chromium sets data-figures-ok to the number of figures it holds (every image
# decoded, every SVG laid out with a non-zero size) with no console message. The checks are shown
# to fail on a page with a broken image and on a page that logs an error. Bad input: exit 2 and
# no file.
# usage: report.sh CDLAB FIXTURE_DIR SOURCE_ROOT
set -eu
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
src=$3
command -v gnuplot >/dev/null 2>&1 || { echo "skip: no gnuplot"; exit 77; }
command -v xmllint >/dev/null 2>&1 || { echo "FAIL: no xmllint (libxml2-utils; scripts/install-deps.sh installs it)"; exit 1; }
browser=""
for b in chromium-headless-shell chromium; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "FAIL: no headless Chromium (scripts/install-deps.sh installs it)"; exit 1; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export HOME="$tmp"   # the browser writes its profile and caches nowhere else

# The page as the browser leaves it after load (console messages on stderr).
render() {
    # --headless is implied by chromium-headless-shell and needed by chromium; --no-sandbox because
    # tests may run as root.
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
        --enable-logging=stderr --v=0 --virtual-time-budget=10000 --dump-dom "file://$1" 2>"$2"
}

"$cdlab" run --quiet --output "$tmp" --run-id c "$fix/tiny.ini" >/dev/null
# The tri_tri fixture with two a/H values: its figure has a log axis.
sed 's/^a_over_h = .*/a_over_h = 1e-6, 1e-3/' "$fix/tri_tri.ini" >"$tmp/tri_tri.ini"
"$cdlab" run --quiet --output "$tmp" --run-id t "$tmp/tri_tri.ini" >/dev/null
"$cdlab" run --quiet --output "$tmp" --run-id one "$fix/tri_tri.ini" >/dev/null
mkdir "$tmp/ref"
nref=0
for f in "$src"/experiments/reference/*.csv; do
    sed 's/^# experiments:.*/# experiments: tiny/' "$f" >"$tmp/ref/$(basename "$f")"
    grep -q '^# plot: none' "$f" || nref=$((nref + 1))
done
[ "$nref" -gt 0 ] || { echo "FAIL: no reference result to draw in $src/experiments/reference"; exit 1; }
out=$("$cdlab" report --reference "$tmp/ref" -o "$tmp/report.html" "$tmp/tiny/c" "$tmp/tri_tri_cli/t")
[ "$out" = "$tmp/report.html" ] || { echo "FAIL: report printed '$out', expected its path"; exit 1; }
[ ! -e "$tmp/tiny/c/fps_vs_cubes.png" ] || { echo "FAIL: the report wrote into the run directory"; exit 1; }

xmllint --noout "$tmp/report.html" || { echo "FAIL: the page is not well formed"; exit 1; }
if grep -Eq '<(link|iframe|object)[ >]|(src|href)="(https?:)?//|url\(' "$tmp/report.html"; then
    echo "FAIL: the page refers to something outside itself"; exit 1
fi
# Figures: the tiny run's two, the tri_tri run's one, and one per reference file drawn.
figures=$(grep -o '<figure class="fig">' "$tmp/report.html" | wc -l)
[ "$figures" -eq $((3 + nref)) ] || { echo "FAIL: $figures figures, expected $((3 + nref))"; exit 1; }
for text in 'bound and verified' 'counter PAPI_TOT_CYC' 'config SHA-256' '<h3>Warnings</h3>' \
            'Source: the student project report' 'Summary</h3>'; do
    grep -Fq "$text" "$tmp/report.html" || { echo "FAIL: the page lacks '$text'"; exit 1; }
done

render "$tmp/report.html" "$tmp/console" >"$tmp/dom.html"
grep -q "data-figures-ok=\"$figures\"" "$tmp/dom.html" || {
    echo "FAIL: the browser did not see $figures decoded figures:"; grep -o 'data-figures-[a-z]*="[^"]*"' "$tmp/dom.html"
    exit 1
}
if grep 'CONSOLE' "$tmp/console"; then echo "FAIL: console messages"; exit 1; fi

# The checks can fail: a corrupt image is reported broken, a logged error is seen.
sed '0,/base64,iVBOR/s//base64,AAAA/' "$tmp/report.html" >"$tmp/broken.html"
render "$tmp/broken.html" "$tmp/console2" >"$tmp/dom2.html"
grep -q 'data-figures-broken="fps_vs_cubes' "$tmp/dom2.html" || { echo "FAIL: a corrupt image went unnoticed"; exit 1; }
sed 's|</body>|<script>console.error("on purpose")</script></body>|' "$tmp/report.html" >"$tmp/noisy.html"
render "$tmp/noisy.html" "$tmp/console3" >/dev/null
grep -q 'CONSOLE.*on purpose' "$tmp/console3" || { echo "FAIL: a console error went unnoticed"; exit 1; }

# A figure the data cannot make (one a/H on a log axis) is said in the page, not fatal.
"$cdlab" report --reference "$tmp/ref" -o "$tmp/one.html" "$tmp/tri_tri_cli/one" >/dev/null 2>"$tmp/err"
grep -q 'Figure tri_tri_ops could not be drawn' "$tmp/one.html" || { echo "FAIL: a failed figure went unsaid"; exit 1; }
grep -q 'warning: .*tri_tri_ops.gp failed' "$tmp/err" || { echo "FAIL: no warning for a failed figure"; exit 1; }

# --no-reference: the page has none of them; with --reference as well, exit 2 and no page.
"$cdlab" report --no-reference -o "$tmp/noref.html" "$tmp/tiny/c" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: report --no-reference: $(cat "$tmp/err")"; exit 1; }
grep -q "The seed's result" "$tmp/report.html" && ! grep -q "The seed's result" "$tmp/noref.html" ||
    { echo "FAIL: report --no-reference still shows reference results"; exit 1; }
set +e
"$cdlab" report --no-reference --reference "$tmp/ref" -o "$tmp/both.html" "$tmp/tiny/c" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 2 ] && [ ! -e "$tmp/both.html" ] || { echo "FAIL: --reference with --no-reference: exit $rc"; exit 1; }
echo "ok: --no-reference leaves the reference results out; with --reference it is refused"

# Bad input: not a run, an unknown option; exit 2 and no page.
rm -f "$tmp/report.html"
for args in "$tmp" "--bogus $tmp/tiny/c" "$tmp/missing"; do
    set +e
    # shellcheck disable=SC2086
    "$cdlab" report -o "$tmp/report.html" $args 2>"$tmp/err"
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || { echo "FAIL: report $args exited $rc, expected 2"; exit 1; }
    [ ! -e "$tmp/report.html" ] && [ ! -e "$tmp/report.html.part" ] || { echo "FAIL: report $args left a file"; exit 1; }
    grep -q 'cdlab report: ' "$tmp/err" || { echo "FAIL: report $args gave no message"; exit 1; }
done
# -o naming a file of a run it reads (the page would replace it), or nothing: exit 2, run intact.
cp "$tmp/tiny/c/meta.ini" "$tmp/meta.before"
for o in "$tmp/tiny/c/meta.ini" "$tmp/tiny/c/summary.csv" ""; do
    set +e
    "$cdlab" report -o "$o" "$tmp/tiny/c" >/dev/null 2>"$tmp/err"
    rc=$?
    set -e
    [ "$rc" -eq 2 ] && grep -q 'cdlab report: ' "$tmp/err" || { echo "FAIL: report -o '$o': exit $rc"; cat "$tmp/err"; exit 1; }
done
cmp -s "$tmp/meta.before" "$tmp/tiny/c/meta.ini" || { echo "FAIL: report -o overwrote the run's meta.ini"; exit 1; }
# A run's figure file that is no PNG is drawn afresh, not embedded as one.
fig=$(sed -n 's/^figures = \([^, ]*\).*/\1/p' "$tmp/tiny/c/meta.ini")
if [ -n "$fig" ]; then
    cp -r "$tmp/tiny/c" "$tmp/notpng"
    echo hello >"$tmp/notpng/$fig.png"
    "$cdlab" report -o "$tmp/notpng.html" "$tmp/notpng" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
    grep -q "$fig.png is not a PNG" "$tmp/err" && ! grep -q 'base64,aGVsbG8' "$tmp/notpng.html" ||
        { echo "FAIL: a figure file that is no PNG"; cat "$tmp/err"; exit 1; }
fi
echo "ok: $figures figures decoded in $browser, no console message, well-formed page; bad input refused"
