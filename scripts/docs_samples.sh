#!/bin/sh
# SPDX-License-Identifier: MIT
# Print PAGE with every sample output in it regenerated: a fenced block right after a line
# `<!-- sample -->` (or `<!-- sample: filter SED -->`) whose first line is `$ COMMAND` gets, below
# that line, what COMMAND prints (stdout and stderr), with SED applied when given (to drop lines
# that hold times). COMMAND runs in an empty scratch directory holding `tests` and `examples`
# (links to the sources') and a link to each PLUGIN under its own name; `cdlab` in it is CDLAB.
# The docs_usage test compares the page with this output, so a sample cannot go stale:
#   sh scripts/docs_samples.sh build/src/cli/cdlab docs/usage.md build/tests/plugins/*.so > new.md
# usage: docs_samples.sh CDLAB PAGE [PLUGIN...]
set -eu
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
[ $# -ge 2 ] || { echo "usage: docs_samples.sh CDLAB PAGE [PLUGIN...]" >&2; exit 2; }
CDLAB=$(abs "$1")
page=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
ln -s "$CDLAB" "$tmp/bin/cdlab"
for p in "$@"; do ln -s "$(abs "$p")" "$tmp/bin/$(basename "$p")"; done

# COMMAND's output, run in a fresh scratch directory; $1 the command, $2 the sed filter or "".
sample() {
    work=$(mktemp -d "$tmp/run.XXXXXX")
    ln -s "$src/tests" "$work/tests"
    ln -s "$src/examples" "$work/examples"
    for p in "$tmp"/bin/*.so; do [ -e "$p" ] && ln -s "$p" "$work/$(basename "$p")"; done
    (cd "$work" && PATH="$tmp/bin:$PATH" sh -c "$1" 2>&1) >"$tmp/out" || true
    if [ -n "$2" ]; then sed "$2" "$tmp/out"; else cat "$tmp/out"; fi
}

state=text  # text, fence (after a marker), command (after the fence), skip (old output)
filter=""
while IFS= read -r line || [ -n "$line" ]; do
    case $state in
        text)
            printf '%s\n' "$line"
            case $line in
                '<!-- sample -->') state=fence filter="" ;;
                '<!-- sample: filter '*' -->') state=fence
                    filter=${line#'<!-- sample: filter '}
                    filter=${filter%' -->'} ;;
            esac ;;
        fence)
            printf '%s\n' "$line"
            case $line in '```'*) state=command ;; *) echo "$page: a sample marker without a block" >&2; exit 1 ;; esac ;;
        command)
            printf '%s\n' "$line"
            case $line in
                '$ '*) sample "${line#'$ '}" "$filter"; state=skip ;;
                *) echo "$page: a sample block without '\$ COMMAND' first" >&2; exit 1 ;;
            esac ;;
        skip)
            case $line in '```') printf '%s\n' "$line"; state=text ;; esac ;;
    esac
done <"$page"
[ "$state" = text ] || { echo "$page: a sample block is not closed" >&2; exit 1; }
