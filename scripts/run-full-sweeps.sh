#!/usr/bin/env bash
# The long sweeps that `make test` samples (docs/testing.md): 100 random
# gradient programs against finite differences (make test: 12), and every
# one of 200 random programs at every budget of its sweep, from store-all
# down to the minimum tadc names (make test: 5). `make test-full` runs
# them after `make test`, and so does CI. Exits non-zero on any failure.
set -euo pipefail
build=${1:-build}
tadc="$build/bin/tadc"
cd "$(dirname "$0")/.."
start=$SECONDS
python3 test/AutoDiff/random_programs.py --tadc "$tadc" --count 100 --seed 7 | tail -1
python3 test/Remat/random_budgets.py --tadc "$tadc" --count 200 --seed 0 | tail -1
echo "full sweeps passed in $((SECONDS - start)) s"
