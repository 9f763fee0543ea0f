#!/usr/bin/env bash
# The long sweeps that `make test` samples (docs/testing.md): the lit
# tests of test/Full/ (the rest of each sampled sweep; lit --param
# sweeps=full), 100 random gradient programs against finite differences
# (make test: 12), and every one of 200 random programs at every budget of
# its sweep, from store-all down to the minimum tadc names (make test: 5).
# `make test-full` runs them after `make test`, and so does CI. Each
# sweep's whole output goes to a log in the build folder; its last line is
# printed, and on a failure its failures. Exits non-zero on any failure.
set -uo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
tadc="$build/bin/tadc"
# Debian's Python, which has NumPy (a python3 first on PATH may not).
python=/usr/bin/python3
status=0
sweep() {
  local log="$build/$1.log"
  shift
  "$python" "$@" > "$log" 2>&1
  local code=$?
  [ $code -ne 0 ] && grep -E "^FAIL" "$log"
  tail -n 1 "$log"
  [ $code -eq 0 ] || status=1
}
start=$SECONDS
lit=${LIT:-/usr/lib/llvm-22/bin/lit}
# lit prints each failing test as "FAIL: ..." and ends with its counts.
sweep full-lit "$lit" -sv --param sweeps=full --filter 'Full/' "$build/test"
sweep full-random-programs test/AutoDiff/random_programs.py --tadc "$tadc" --count 100 --seed 7
sweep full-random-budgets test/Remat/random_budgets.py --tadc "$tadc" --count 200 --seed 0
echo "full sweeps: $((SECONDS - start)) s"
exit $status
