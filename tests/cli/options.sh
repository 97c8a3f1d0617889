#!/bin/sh
# SPDX-License-Identifier: MIT
# The option parser of every command (src/cli/options.c): --help comes from the command's table
# and exits 0; an unknown option, a missing value, a value out of its range and a wrong operand
# count exit 2 with `cdlab <command>: ...` and write nothing; options may follow the operands, take
# --opt=value, and "--" ends them. Values with documented bounds: verify --scenes/--poses/--threads,
# run --run-id (portable names, not `latest`), snapshot --frame, compare --format/--threshold,
# query --algo, poses --poses and --distance, run --shard/--cpu; "-" as an output path. A bad short
# option in a cluster is named itself; a flag given a value says it takes none; `cdlab help COMMAND`
# prints COMMAND's --help, anything else after help exits 2. trace's messages name its subcommand
# once it is read (`cdlab trace import: --output '': ...`), an unknown one whatever follows it.
# usage: options.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
cp "$fix/tiny.ini" tiny.ini
fail=0
count=0
bad() {  # PHRASE ARGS...: exit 2, PHRASE in the message, nothing written
    phrase=$1
    shift
    count=$((count + 1))
    "$cdlab" "$@" >out 2>err
    rc=$?
    left=$(ls -A | grep -v -e '^out$' -e '^err$' -e '^tiny.ini$')
    if [ "$rc" -ne 2 ]; then
        echo "FAIL cdlab $*: exit $rc, expected 2 ($(cat err))"; fail=1
    elif ! grep -q "^cdlab $1: " err || ! grep -qF -- "$phrase" err; then
        echo "FAIL cdlab $*: message lacks 'cdlab $1: ...$phrase': $(cat err)"; fail=1
    elif [ -n "$left" ]; then
        echo "FAIL cdlab $*: left $left"; fail=1
        rm -rf $left
    else
        echo "ok cdlab $* -> $(head -n 1 err)"
    fi
}
good() {  # ARGS...: exit 0
    count=$((count + 1))
    if "$cdlab" "$@" >out 2>err; then
        echo "ok cdlab $*"
    else
        echo "FAIL cdlab $*: exit $?: $(cat err)"; fail=1
    fi
}

for c in methods version run merge info plot report compare verify snapshot query poses trace; do
    good $c --help
    head -n 1 out | grep -q "^usage: cdlab $c" || { echo "FAIL $c --help: $(head -n 1 out)"; fail=1; }
    grep -q -- '-h, --help' out || { echo "FAIL $c --help lists no -h, --help"; fail=1; }
    bad "unknown option '--no-such-option'" $c --no-such-option
done
for c in run merge plot report compare verify snapshot query poses trace; do
    # The first option of the table that takes a value, given none.
    opt=$("$cdlab" $c --help | sed -n 's/^  \(-., \)\{0,1\}\(--[a-z-]*\) [A-Z].*/\2/p' | head -n 1)
    [ -n "$opt" ] || { echo "FAIL $c --help lists no option with a value"; fail=1; continue; }
    bad "missing value for '$opt'" $c "$opt"
done
bad "unknown option '-Z'" run -Z tiny.ini
# A bad short option inside a cluster is named itself, not the argument before the cluster (glibc
# has not moved optind past -zq yet: `--explain` was blamed); a flag given a value says it takes
# none (it was an "unknown option '--explain=yes'"); a missing value names the option in full.
bad "unknown option '-z'" query tri-tri "$fix/query/tri_tri.csv" --explain -zq
bad "unknown option '-z'" query tri-tri "$fix/query/tri_tri.csv" --out=x.csv -zq
bad "unknown option '-Z'" run --dry-run -Zq tiny.ini
bad "option '--explain' takes no value" query tri-tri "$fix/query/tri_tri.csv" --explain=yes
bad "option '--explain' takes no value" query tri-tri "$fix/query/tri_tri.csv" --expl=yes
bad "option '--help' takes no value" query --help=yes
bad "missing value for '--out'" query tri-tri "$fix/query/tri_tri.csv" --ou
# `cdlab help COMMAND` is `cdlab COMMAND --help`; an option, a word that is no command or a second
# word after help exits 2 (all three once printed the list of commands, exit 0).
for c in methods version run merge info plot report compare verify snapshot query poses trace; do
    count=$((count + 1))
    "$cdlab" $c --help >want 2>&1
    if "$cdlab" help $c >out 2>err && cmp -s out want && [ ! -s err ]; then
        echo "ok cdlab help $c"
    else
        echo "FAIL cdlab help $c: $(head -n 1 out) $(cat err)"; fail=1
    fi
    rm -f want
done
bad "unknown option '--bogus'" help --bogus
bad "unknown command 'bogus'" help bogus
bad "expected at most one command" help query run
good help
grep -q '^  query ' out || { echo "FAIL cdlab help lists no query: $(cat out)"; fail=1; }
bad "expected no arguments" methods extra
bad "expected two run directories" compare onlyone
bad "expected one config or run directory" snapshot
bad "expected KIND FILE.csv" query tri-tri

# verify: counts in their ranges (0 scenes once printed FAIL for scene -1).
bad "--scenes '0': expected an integer in [1, 100000000]" verify --scenes 0
bad "--scenes '100000001'" verify --scenes 100000001
bad "--scenes '-1'" verify --scenes -1
bad "--scenes '1e3'" verify --scenes 1e3
bad "--poses '0'" verify --poses 0
bad "--threads '0'" verify --threads 0
bad "--seed '4294967296'" verify --seed 4294967296
# run --run-id: one portable name, not the `latest` link (which would then never move again).
nl='a
b'
for id in latest "$nl" a/b . .. .hidden -x "a b" "$(printf 'x%.0s' $(seq 65))" "é"; do
    bad "--run-id '$id': expected a name of 1 to 64" run --output res --run-id "$id" tiny.ini
done
bad "--run-id '': expected ID, not empty" run --output res --run-id "" tiny.ini
good run --dry-run --run-id r-1.2_X tiny.ini
bad "--shard '2/2'" run --shard 2/2 tiny.ini
bad "--cpu 'x'" run --cpu x tiny.ini
bad "no config given" run --quiet
bad "--keys [--markdown] takes no config" run --keys tiny.ini
# snapshot --frame: at most the last frame a run can measure.
bad "--frame '1000000000000': expected an integer in [0, 20000000]" snapshot --frame 1000000000000 tiny.ini
bad "--frame '20000001'" snapshot --frame 20000001 tiny.ini
bad "--format 'xml': expected one of md, csv" compare --format xml a b
bad "--threshold 'abc': expected a percentage" compare --threshold abc a b
bad "--algo 'fast': expected one of exact, gd, float" query --algo fast tri-tri x.csv
bad "--poses '0'" poses --poses 0 out.csv
# At most what [mesh] poses_file reads back (1 GiB at 124 bytes a line at most).
bad "--poses '8000001': expected an integer in [1, 8000000]" poses --poses 8000001 out.csv
bad "--distance 'nan'" poses --distance nan out.csv
# A number that underflows to 0 is refused and says so; a subnormal is exact and taken as it is
# (glibc's ERANGE for it once refused 4e-324 as out of [0, 1e+06]); -0 is 0 (never written "-0").
bad "--distance '1e-400': expected a number in [0, 1e+06] (it rounds to 0" poses --distance 1e-400 out.csv
good poses --poses 1 --distance 4e-324 -
[ "$(sed -n 2p out | cut -d, -f5)" = 4.9406564584124654e-324 ] || { echo "FAIL --distance 4e-324: $(cat out)"; fail=1; }
good poses --poses 1 --distance -0 -
[ "$(sed -n 2p out | cut -d, -f5)" = 0 ] || { echo "FAIL --distance -0: $(cat out)"; fail=1; }
# "-" is standard output where a command writes one CSV (poses, query --out, trace export -o),
# and refused elsewhere: never a file named "-".
[ "$(head -n 1 out)" = qw,qx,qy,qz,tx,ty,tz ] && [ ! -e ./- ] || { echo "FAIL poses -: $(ls -A)"; fail=1; }
good query sphere-sphere "$fix/query/sphere_sphere.csv" --out -
cmp -s out "$fix/query/sphere_sphere.expected" && [ ! -e ./- ] || { echo "FAIL query --out -: $(ls -A)"; fail=1; }
bad "'-': expected a file path" report -o - a
for sub in "record -o - tiny.ini" "import -o - x.csv"; do
    "$cdlab" trace $sub >out 2>err
    rc=$?
    if [ "$rc" -ne 2 ] || ! grep -qF "cdlab trace ${sub%% *}: '-': expected a file path" err || [ -e ./- ]; then
        echo "FAIL cdlab trace $sub: exit $rc, $(cat err)"; fail=1
    else
        echo "ok cdlab trace $sub -> $(cat err)"
    fi
done

# Order and forms: options after the operands, --opt=value, "--" ending the options.
good run tiny.ini --dry-run
grep -q '^tiny.ini: experiment tiny' out || { echo "FAIL run CONFIG --dry-run: $(cat out)"; fail=1; }
# A prefix of two long names is ambiguous, not unknown; --keys takes no run option.
bad "ambiguous option '--r': --run-id, --resume" run --r x tiny.ini
bad "takes no config and no other option" run --keys --shard 0/2
good run --keys
grep -q "^  \[method\] looseness .* loose_octree: " out || { echo "FAIL run --keys lists no method parameters"; fail=1; }
# --quiet: --dry-run prints the plan and no warnings.
sed 's/^method = .*/method = naive\ndepth = 3/' tiny.ini >warn.ini
good run --dry-run --quiet warn.ini
[ ! -s err ] || { echo "FAIL run --dry-run --quiet wrote to stderr: $(cat err)"; fail=1; }
good run --dry-run warn.ini
grep -q "warning: warn.ini:.*depth: no listed method" err || { echo "FAIL run --dry-run: no warning: $(cat err)"; fail=1; }
rm -f warn.ini
# An empty path, name or column is refused (--output= once wrote under /: an empty results root).
bad "expected DIR, not empty" run --output= tiny.ini
bad "expected STEM, not empty" snapshot -o '' tiny.ini
bad "expected RUN_DIR, not empty" merge -o '' a b
bad "expected FILE, not empty" report -o '' a
bad "expected DIR, not empty" snapshot --plots= tiny.ini
# Options read by a handler of their own are refused empty in the same words (--plugin '' once
# said "--plugin : No such file or directory").
bad "--plugin '': expected FILE, not empty" methods --plugin ''
bad "--plugin '': expected FILE, not empty" verify --plugin ''
bad "--shard '': expected I/N, not empty" run --shard '' tiny.ini
bad "--cpu '': expected N|auto, not empty" run --cpu '' tiny.ini
# trace: an option its subcommand does not read is refused (info once ignored -o, the others
# --point and --frames). A message names the subcommand once it is read (as options before it
# cannot); an unknown subcommand is named as such whatever follows it.
for case in "trace import|--output '': expected FILE, not empty|import a.csv -o ''" \
            "trace export|--output '': expected FILE, not empty|export -o '' a" \
            "trace record|--point 'q': expected an integer|record tiny.ini --point q -o x.trace" \
            "trace info|too many arguments|info a b" \
            "trace|unknown subcommand 'bogus': expected record, import, export or info|bogus" \
            "trace|unknown subcommand 'bogus': expected record, import, export or info|bogus x" \
            "trace|unknown subcommand 'bogus': expected record, import, export or info|-- bogus x" \
            "trace info|-o is not an option of info (it writes nothing)|info a.trace -o x.trace" \
            "trace export|--point is not an option of export (only record takes it)|export a.trace -o x.csv --point 2" \
            "trace import|--frames is not an option of import (only record takes it)|import a.csv -o x.trace --frames 3"; do
    who=${case%%|*} rest=${case#*|}
    phrase=${rest%%|*} args=${rest#*|}
    count=$((count + 1))
    eval "\"\$cdlab\" trace $args" >out 2>err
    rc=$?
    case $(head -n 1 err) in "cdlab $who: $phrase"*) said=1 ;; *) said=0 ;; esac
    if [ "$rc" -ne 2 ] || [ $said = 0 ] || [ -e x.trace ]; then
        echo "FAIL cdlab trace $args: exit $rc, expected 2 and 'cdlab $who: $phrase': $(cat err)"; fail=1
    else
        echo "ok cdlab trace $args -> $(head -n 1 err)"
    fi
done
good run --dry-run --run-id=x -- tiny.ini
# --cpu on a config with pin = off: the config wins, and the run says so (stderr and meta.ini).
sed -e 's/^pin = .*/pin = off/' -e 's/^cpu = .*/cpu = -1/' -e 's/^cubes = .*/cubes = 30/' tiny.ini >pinoff.ini
good run --output "$tmp/po" --run-id p --cpu 0 pinoff.ini
grep -q "warning: --cpu ignored: pinoff.ini has \[run\] pin = off" err &&
    grep -q "^w1 = --cpu ignored: pinoff.ini has" "$tmp/po/tiny/p/meta.ini" ||
    { echo "FAIL --cpu with pin = off: $(cat err)"; fail=1; }
rm -rf "$tmp/po" pinoff.ini
good poses --poses=3 p.csv
[ "$(grep -c "^[0-9-]" p.csv)" = 3 ] || { echo "FAIL poses --poses=3 wrote $(wc -l <p.csv) lines"; fail=1; }
[ $fail = 0 ] && echo "ok: $count command lines"
exit $fail
