#!/bin/sh
# SPDX-License-Identifier: MIT
# `cdlab merge` refuses, with exit 2 and writing nothing, shards it cannot merge as one run:
# - a shard file that is no regular file or over its limit (frames.csv a FIFO or /dev/zero,
#   config.ini /dev/zero, files over 1 GiB and 1 MiB), refused before a byte is read (each merge
#   under `timeout`, so a hang or an endless read fails the test instead of stalling it);
# - a shard whose config.ini is not the config its meta.ini [config] sha256 records (edited since).
# usage: merge.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }

cat >t.ini <<'INI'
[experiment]
name = t
seed = 42
warmup = 1
frames = 5
repeats = 1
[scene]
cubes = 100, 200
[method]
method = naive, grid
[run]
pin = off
cpu = -1
counters =
INI
for i in 0 1; do
    "$cdlab" run --quiet --output res --shard $i/2 --run-id s$i t.ini >/dev/null 2>err.txt || fail "shard $i: $(cat err.txt)"
done
s0=res/t/s0 s1=res/t/s1
timeout 60 "$cdlab" merge --quiet $s0 $s1 -o whole >/dev/null 2>err.txt || fail "merge of the whole shards: $(cat err.txt)"

# refuse NAME EXPECTED SHARD...: merge exits 2 (within the timeout), says EXPECTED and writes
# nothing.
refuse() {
    name=$1 expect=$2
    shift 2
    rm -rf bad
    # at most ~100 MB written: a merge that copies /dev/zero dies of SIGXFSZ, not of a full disk
    (ulimit -f 200000 && timeout 20 "$cdlab" merge "$@" -o bad >/dev/null 2>err.txt)
    rc=$?
    [ $rc -ne 124 ] || fail "$name: merge still running after 20 s (a hang or an endless read)"
    [ $rc -eq 2 ] || fail "$name: merge exited $rc, expected 2: $(cat err.txt)"
    grep -qF -- "$expect" err.txt || fail "$name: message lacks '$expect': $(cat err.txt)"
    [ ! -e bad ] || fail "$name: merge left bad/ behind: $(ls -A bad)"
    echo "ok: refuses $name: $(cat err.txt)"
}
# copy NAME FROM: a fresh copy of shard FROM at NAME.
copy() {
    rm -rf "$1"
    cp -r "$2" "$1"
}

# ---------------------------------------------------------------------------------------------
# Files that are no regular file, or too large: refused before a byte is read.
copy fifo $s1 && rm fifo/frames.csv && mkfifo fifo/frames.csv
refuse "frames.csv a FIFO" "fifo/frames.csv: not a regular file (a pipe)" $s0 fifo
copy zero $s1 && ln -sf /dev/zero zero/frames.csv
refuse "frames.csv /dev/zero" "zero/frames.csv: not a regular file (a character device)" $s0 zero
copy zero $s1 && ln -sf /dev/zero zero/summary.csv
refuse "summary.csv /dev/zero" "zero/summary.csv: not a regular file (a character device)" $s0 zero
copy zero $s0 && ln -sf /dev/zero zero/config.ini
refuse "config.ini /dev/zero" "zero/config.ini: not a regular file (a character device)" zero $s1
copy fifo $s0 && rm fifo/config.ini && mkfifo fifo/config.ini
refuse "config.ini a FIFO" "fifo/config.ini: not a regular file (a pipe)" fifo $s1
# Sparse files: over the limits without writing them.
copy huge $s1 && truncate -s 1025M huge/frames.csv || { echo "skip: no sparse files"; exit 77; }
refuse "frames.csv over 1 GiB" "huge/frames.csv: 1074790400 bytes, larger than the 1 GiB limit" $s0 huge
copy huge $s0 && truncate -s 2M huge/config.ini
refuse "config.ini over 1 MiB" "huge/config.ini: 2097152 bytes, larger than the 1 MiB limit" huge $s1

# ---------------------------------------------------------------------------------------------
# config.ini is the config its run measured: the SHA-256 meta.ini [config] records, in every shard
# (the merged run's config.ini is shard 0's). An edit of another shard's copy is refused too.
copy edited $s0 && sed -i 's/^repeats = 1/repeats = 9/; s/^method = naive, grid/method = sap/' edited/config.ini
refuse "shard 0's config.ini edited" "edited/config.ini: SHA-256 $(sha256sum edited/config.ini | cut -d' ' -f1), but its meta.ini [config] sha256 is $(sed -n 's/^sha256 = //p' $s0/meta.ini)" edited $s1
copy edited $s1 && echo '; a comment' >>edited/config.ini
refuse "shard 1's config.ini edited" "edited/config.ini: SHA-256" $s0 edited
cmp -s whole/config.ini t.ini && [ "$(sed -n 's/^sha256 = //p' whole/meta.ini)" = "$(sha256sum <whole/config.ini | cut -d' ' -f1)" ] ||
    fail "the merged config.ini is not the config its meta.ini records"
echo "ok: the merged config.ini is the config, as its meta.ini [config] sha256 says"
exit 0
