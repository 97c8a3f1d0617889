#!/bin/sh
# SPDX-License-Identifier: MIT
# A run that does not finish never looks finished, and its message names the file and the cause:
#   - a file size limit (RLIMIT_FSIZE: EFBIG, "File too large"), isolate = process and none;
#   - a full disk (ENOSPC on a 64 KiB tmpfs; needs mount, else skipped with the reason);
#   - files that cannot be created (a run directory without write permission, or, as root, a
#     tmpfs out of inodes);
#   - a point that fails (its process is killed).
# Every case: exit 1; the message names the path and the cause and says where the incomplete run
# is; INCOMPLETE's first line says why; no frames.csv, summary.csv, meta.ini or config.ini; the
# .part files kept; `latest` still at the previous complete run; `cdlab plot` refuses (exit 2).
# usage: incomplete.sh CDLAB FIXTURE_DIR
set -u
. "$(dirname "$0")/lib.sh"
fail() { echo "FAIL: $*"; exit 1; }

# $tmp/NAME.ini: 3 points × 400 frames of grid_multi, about 140 kB of frames.csv.
config() {
    cat >"$tmp/$1.ini" <<INI
[experiment]
name = $1
warmup = 0
frames = 400
repeats = 1
[scene]
cubes = 500, 1000, 2000
[method]
method = grid_multi
[run]
counters =
pin = off
cpu = -1
isolate = $2
INI
}

# A complete small run of NAME.ini into OUT as run id `prev`, which `latest` must keep.
prev() {
    sed -e 's/^cubes = .*/cubes = 100/' -e 's/^frames = .*/frames = 2/' "$tmp/$2.ini" >"$tmp/$2-small.ini"
    "$cdlab" run --quiet --output "$1" --run-id prev "$tmp/$2-small.ini" >/dev/null || fail "$2: small run failed"
    [ "$(readlink "$1/$2/latest")" = prev ] || fail "$2: latest is not prev after a complete run"
}

# check OUT NAME ID RC MESSAGE_PART FIRST_LINE_PART: what every run that did not finish shows.
check() {
    out=$1 name=$2 id=$3 rc=$4 msg=$5 first=$6
    d=$out/$name/$id
    [ "$rc" -eq 1 ] || fail "$name/$id: exit $rc, expected 1: $(cat "$tmp/err")"
    grep -qF "$msg" "$tmp/err" || fail "$name/$id: message lacks '$msg': $(cat "$tmp/err")"
    grep -qF "; incomplete run left in $d" "$tmp/err" || fail "$name/$id: message lacks where: $(cat "$tmp/err")"
    for f in frames.csv summary.csv meta.ini config.ini; do
        [ ! -e "$d/$f" ] || fail "$name/$id: final $f in an incomplete run: $(ls "$d")"
    done
    [ -e "$d/frames.csv.part" ] && [ -e "$d/summary.csv.part" ] || fail "$name/$id: .part files not kept: $(ls "$d")"
    head -n 1 "$d/INCOMPLETE" | grep -qF "$first" ||
        fail "$name/$id: INCOMPLETE says '$(head -n 1 "$d/INCOMPLETE")', expected '$first'"
    [ "$(readlink "$out/$name/latest")" = prev ] || fail "$name/$id: latest moved to $(readlink "$out/$name/latest")"
    "$cdlab" plot "$d" >/dev/null 2>"$tmp/plot.err"
    prc=$?
    [ "$prc" -eq 2 ] || fail "$name/$id: plot of an incomplete run exited $prc, expected 2"
    grep -qF "cdlab plot: $d: incomplete run ($(head -n 1 "$d/INCOMPLETE")); nothing to plot" "$tmp/plot.err" ||
        fail "$name/$id: plot says: $(cat "$tmp/plot.err")"
    echo "ok: $name/$id: exit 1, '$(head -n 1 "$d/INCOMPLETE")', .part files kept, latest unchanged, plot refuses"
}

# 1. RLIMIT_FSIZE: with SIGXFSZ ignored a write past the limit fails with EFBIG. The limit (64
# blocks: 32 or 64 KiB, by the shell) holds every file but frames.csv.part. Without the trap the
# runner ignores SIGXFSZ itself and says the same.
for iso in process none; do
    config fsize_$iso $iso
    prev "$tmp" fsize_$iso
    for how in trap own; do
        set_trap="trap '' XFSZ;"
        [ "$how" = own ] && set_trap=""
        [ "$how" = own ] && [ "$iso" = process ] && continue
        sh -c "ulimit -f 64; $set_trap exec \"\$0\" run --quiet --output \"\$1\" --run-id $how \"\$2\"" \
            "$cdlab" "$tmp" "$tmp/fsize_$iso.ini" >/dev/null 2>"$tmp/err"
        check "$tmp" fsize_$iso $how $? "writing $tmp/fsize_$iso/$how/frames.csv.part: File too large" \
            "writing frames.csv.part: File too large"
        grep -q '^status = failed' "$tmp/fsize_$iso/$how/meta.ini.part" || fail "fsize_$iso: meta.ini.part not failed"
    done
done

# 2. A point that fails: its process is killed while it measures.
cat >"$tmp/killed.ini" <<'INI'
[experiment]
name = killed
warmup = 0
frames = 20
repeats = 1
[scene]
cubes = 200..400000 *2
[run]
counters =
pin = off
cpu = -1
isolate = process
INI
prev "$tmp" killed
"$cdlab" run --quiet --output "$tmp" --run-id k "$tmp/killed.ini" >/dev/null 2>"$tmp/err" &
pid=$!
children() { cat /proc/"$1"/task/*/children 2>/dev/null || pgrep -P "$1"; }
# Once the first point is in, kill whatever point process runs until the runner gives up, which it
# says in INCOMPLETE before it exits: a child after that is no point's (LeakSanitizer's tracer at
# exit, in a sanitized build, must live).
running() { head -n 1 "$tmp/killed/k/INCOMPLETE" 2>/dev/null | grep -q '^run started '; }
n=0
while kill -0 "$pid" 2>/dev/null; do
    [ "$n" -lt 600 ] || { kill -KILL "$pid"; fail "killed: the runner did not stop"; }
    if running && [ -f "$tmp/killed/k/summary.csv.part" ] && [ "$(wc -l <"$tmp/killed/k/summary.csv.part")" -ge 2 ]; then
        for c in $(children "$pid"); do kill -KILL "$c" 2>/dev/null; done
    fi
    sleep 0.1
    n=$((n + 1))
done
wait "$pid"
check "$tmp" killed k $? "the point's process ended by signal 9" "the point's process ended by signal 9"

# 3. Files that cannot be created: a run directory made without write permission (umask 0277).
# Root writes there anyway; then only the tmpfs part below tests this.
config noperm none
prev "$tmp" noperm
if [ "$(id -u)" -ne 0 ]; then
    (umask 0277 && exec "$cdlab" run --quiet --output "$tmp" --run-id p "$tmp/noperm.ini") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 1 ] || fail "noperm: exit $rc, expected 1: $(cat "$tmp/err")"
    grep -qF "$tmp/noperm/p/INCOMPLETE: cannot write: Permission denied" "$tmp/err" || fail "noperm: $(cat "$tmp/err")"
    [ ! -e "$tmp/noperm/p" ] || fail "noperm: run directory left: $(ls -la "$tmp/noperm/p")"
    [ "$(readlink "$tmp/noperm/latest")" = prev ] || fail "noperm: latest moved"
    echo "ok: a run directory without write permission: exit 1, path and cause named, nothing left"
else
    echo "skip: permission denied (root may write anywhere); the tmpfs cases below cover files that cannot be created"
fi

# 4. A full disk (ENOSPC) and no free inode, on small tmpfs mounts (root).
mkdir "$tmp/mnt"
if ! mount -t tmpfs -o size=64k tmpfs "$tmp/mnt" 2>"$tmp/mount.err"; then
    echo "skip: a full disk: cannot mount a 64 KiB tmpfs here: $(head -n 1 "$tmp/mount.err")"
    exit 0
fi
mnt=$tmp/mnt
for iso in process none; do
    config full_$iso $iso
    prev "$mnt" full_$iso
    "$cdlab" run --quiet --output "$mnt" --run-id f "$tmp/full_$iso.ini" >/dev/null 2>"$tmp/err"
    check "$mnt" full_$iso f $? "writing $mnt/full_$iso/f/frames.csv.part: No space left on device" \
        "writing frames.csv.part: No space left on device"
    rm -rf "$mnt/full_$iso"  # room for the next case
done
umount "$mnt" && mnt=""
# Out of inodes: with 3 to 9 inodes the run stops at each file in turn (the marker, config.ini.part,
# frames.csv.part, ..., meta.ini.part) or completes; never does an incomplete run look complete.
config inodes none
created=0
for inodes in 3 4 5 6 7 8 9; do
    mount -t tmpfs -o size=1m,nr_inodes=$inodes tmpfs "$tmp/mnt" || fail "cannot mount a tmpfs with $inodes inodes"
    mnt=$tmp/mnt
    "$cdlab" run --quiet --output "$mnt" --run-id i "$tmp/inodes.ini" >/dev/null 2>"$tmp/err"
    rc=$?
    d=$mnt/inodes/i
    if [ "$rc" -eq 0 ]; then
        [ ! -e "$d/INCOMPLETE" ] && [ -s "$d/meta.ini" ] || fail "inodes $inodes: exit 0 but: $(ls "$d")"
    else
        [ "$rc" -eq 1 ] || fail "inodes $inodes: exit $rc: $(cat "$tmp/err")"
        grep -qF "$d/" "$tmp/err" && grep -qF ": No space left on device" "$tmp/err" || fail "inodes $inodes: $(cat "$tmp/err")"
        for f in frames.csv summary.csv meta.ini config.ini; do
            [ ! -e "$d/$f" ] || fail "inodes $inodes: final $f in an incomplete run: $(ls "$d")"
        done
        if [ -e "$d" ]; then
            [ -e "$d/INCOMPLETE" ] || fail "inodes $inodes: no marker: $(ls "$d")"
            "$cdlab" plot "$d" >/dev/null 2>&1
            [ $? -eq 2 ] || fail "inodes $inodes: plot did not refuse"
        else
            grep -qF "$d/INCOMPLETE: cannot write: No space left on device; nothing was run" "$tmp/err" ||
                fail "inodes $inodes: no run directory, and: $(cat "$tmp/err")"
        fi
        [ ! -e "$mnt/inodes/latest" ] || fail "inodes $inodes: latest made for an incomplete run"
        if grep -qF "creating $d/frames.csv.part: No space left on device; incomplete run left in $d" "$tmp/err"; then
            head -n 1 "$d/INCOMPLETE" | grep -qF "creating frames.csv.part: No space left on device" ||
                fail "inodes $inodes: INCOMPLETE: $(cat "$d/INCOMPLETE")"
            created=1
        fi
    fi
    echo "ok: $inodes inodes: exit $rc $(head -n 1 "$tmp/err")"
    umount "$mnt" && mnt=""
done
[ "$created" -eq 1 ] || fail "inodes: no case failed at creating frames.csv.part"
