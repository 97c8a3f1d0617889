#!/bin/sh
# SPDX-License-Identifier: MIT
# The C and C++ sources of src/ and tests/ are as .clang-format lays them out: clang-format
# --dry-run --Werror names every file and line it would change. Skipped (77) where clang-format
# is not installed (scripts/install-deps.sh installs it); its version is printed, since layouts
# differ slightly between versions. Apply the layout with:
#   git ls-files 'src/*.[ch]' 'src/*.cpp' 'src/*.hpp' 'tests/*.[ch]' 'tests/*.cpp' | xargs clang-format -i
# usage: format.sh SOURCE_ROOT
set -u
root=$1
command -v clang-format >/dev/null 2>&1 || { echo "SKIP clang-format is not installed"; exit 77; }
cd "$root" || exit 1
[ -f .clang-format ] || { echo "FAIL no .clang-format in $root"; exit 1; }
files=$(git ls-files 'src/*.[ch]' 'src/*.cpp' 'src/*.hpp' 'tests/*.[ch]' 'tests/*.cpp' 2>/dev/null) ||
    files=$(find src tests -name '*.[ch]' -o -name '*.cpp' -o -name '*.hpp')
[ -n "$files" ] || { echo "FAIL no sources found under $root/src and $root/tests"; exit 1; }
clang-format --version
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
if clang-format --dry-run --Werror $files 2>"$log"; then
    echo "ok: $(echo "$files" | wc -l) files as .clang-format lays them out"
    exit 0
fi
head -n 60 "$log"
echo "FAIL: $(grep -c 'code should be clang-formatted' "$log") places differ from .clang-format;" \
     "apply it: git ls-files 'src/*.[ch]' 'src/*.cpp' 'src/*.hpp' 'tests/*.[ch]' 'tests/*.cpp' | xargs clang-format -i"
exit 1
