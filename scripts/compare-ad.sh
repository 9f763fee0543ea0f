#!/usr/bin/env bash
# Compiles every .tad file of the repository to the AD stage (`--emit=ad`,
# under the default policy) with two tadc binaries and lists those whose
# output or exit status differ: a change meant to make the remat pass
# faster must leave every schedule as it was.
#   scripts/compare-ad.sh OLD_TADC NEW_TADC
# Prints "N of M outputs identical" and exits non-zero when any differs.
set -uo pipefail
old=$1 new=$2
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
same=0 total=0
for f in $(git ls-files '*.tad'); do
  total=$((total + 1))
  "$old" "$f" --emit=ad -o "$out/old" > /dev/null 2>&1; a=$?
  "$new" "$f" --emit=ad -o "$out/new" > /dev/null 2>&1; b=$?
  if [ $a -eq $b ] && { [ $a -ne 0 ] || cmp -s "$out/old" "$out/new"; }; then
    same=$((same + 1))
  else
    echo "differs: $f (exit $a, $b)"
  fi
  rm -f "$out/old" "$out/new"
done
echo "$same of $total outputs identical"
[ $same -eq $total ]
