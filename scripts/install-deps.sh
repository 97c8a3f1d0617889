#!/bin/sh
# SPDX-License-Identifier: MIT
# Install every Debian package cdlab needs (build, tests, figures, optional peers).
# Idempotent: packages already installed are skipped; apt runs only when something is missing.
# Usage: scripts/install-deps.sh [--peers]   (as root, or with sudo available)
set -eu

packages="meson ninja-build pkg-config gcc g++ git libhwloc-dev libpapi-dev libcsv-dev \
libinih-dev libcmocka-dev libccd-dev libgmp-dev gnuplot-nox python3 libassimp-dev \
libfcl-dev libbullet-dev libcgal-dev libode-dev clang libclang-rt-14-dev libxml2-utils clang-format strace"
# The slurm_sweep test starts a throwaway single-node Slurm cluster (scripts/slurm/local-cluster.sh).
packages="$packages slurm-wlm munge"
# The report test renders `cdlab report` in a headless browser: Chromium's headless shell (Debian 12
# ships it through bookworm-security), else the full chromium package.
if command -v apt-cache >/dev/null 2>&1 && apt-cache policy chromium-headless-shell 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    packages="$packages chromium-headless-shell"
elif ! command -v chromium-headless-shell >/dev/null 2>&1; then
    packages="$packages chromium"
fi

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
    exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
        echo "install-deps: not root and no sudo; install as root:$missing" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
