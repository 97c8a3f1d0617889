# SPDX-License-Identifier: MIT
# Sourced by a CLI test (tests/cli/<name>.sh CDLAB FIXTURE_DIR ...) after `set -u` and before any
# of its own code: cdlab and fix as absolute paths, a scratch directory tmp removed at exit (after
# unmounting mnt, where the test has mounted a tmpfs and set mnt to it), and the test working in it.
cdlab=$1
case $cdlab in /*) ;; *) cdlab=$(pwd)/$cdlab ;; esac
fix=$2
case $fix in /*) ;; *) fix=$(pwd)/$fix ;; esac
tmp=$(mktemp -d)
mnt=""
cli_cleanup() {
    if [ -n "$mnt" ]; then umount "$mnt" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cli_cleanup EXIT
cd "$tmp" || exit 1
# Wait (at most 10 s) until the run directory DIR is abandoned: after kill -9 of its runner, the
# point's process ends a moment later (PR_SET_PDEATHSIG) and holds the run's lock until then.
wait_abandoned() {
    _n=0
    until "$cdlab" plot "$1" 2>&1 | grep -q 'incomplete run (abandoned: ' || [ $_n -ge 200 ]; do
        sleep 0.05
        _n=$((_n + 1))
    done
}
# The smallest address-space limit (ulimit -v, KiB) of 128, 256 and 512 MiB under which cdlab
# starts, into lim; empty where it starts under none (a sanitizer build reserves more). Returns
# 0 either way, for tests under set -e.
address_limit() {
    lim=
    for _l in 131072 262144 524288; do
        sh -c "ulimit -v $_l && \"\$0\" version" "$cdlab" >/dev/null 2>&1 && { lim=$_l; break; }
    done
    return 0
}
