#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's test command: install what is missing, configure, build, run every meson test.
# Usage: scripts/test.sh [BUILD_DIR] [extra meson setup options...]
#   CD_SANITIZE=1 scripts/test.sh build-asan     sanitizer build (ASan + UBSan)
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
builddir=${1:-build}
[ $# -gt 0 ] && shift
opts=""
if [ "${CD_SANITIZE:-0}" = 1 ]; then
    opts="-Db_sanitize=address,undefined -Dbuildtype=debugoptimized"
fi
if [ ! -f "$builddir/build.ninja" ]; then
    # shellcheck disable=SC2086
    meson setup "$builddir" $opts "$@"
fi
meson compile -C "$builddir"
# Long differential tests share the machine's two cores.
meson test -C "$builddir" --num-processes 2 --print-errorlogs
