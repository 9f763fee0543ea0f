#!/usr/bin/env bash
# `make demo`: takes the example programs as far as tad's pipeline goes today:
# each example is compiled and its forward function runs on the CPU (JIT),
# with the result and the memory the runtime allocator measured. Gradients
# arrive with the AD pass (docs/language.md: derivative requests are
# declarations until then).
set -euo pipefail
build=${1:-build}
tadc="$build/bin/tadc"

echo "== tadc examples/mlp.tad --emit=tad --opt   (the MLP in the tad dialect)"
"$tadc" examples/mlp.tad --emit=tad --opt --entry mlp
echo

run() {
  local example=$1 entry=$2 what=$3
  echo "== tadc run examples/$example --entry $entry   ($what)"
  "$tadc" run "examples/$example" --entry "$entry" --repeat 5 | grep -v '^input '
  echo
}
run mlp.tad mlp "MLP loss and auxiliary loss, batch 64"
run deep.tad deep "48 residual blocks, each checkpointed"
run transformer.tad loss "a transformer block and a cross-entropy readout"
run rrule.tad model "two layers with a custom rule"
run moe.tad stack "router and checkpointed expert blocks with auxiliary losses"

echo "== an executable and a shared library, which need neither LLVM nor MLIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tadc" examples/mlp.tad --emit=exe --entry mlp -o "$tmp/mlp"
"$tadc" examples/mlp.tad --emit=lib --entry mlp -o "$tmp/libmlp.so"
"$tmp/mlp" --seed 0 | grep '^result'
echo "$tmp/libmlp.so, with the C header:"
grep '^int ' "$tmp/libmlp.h"
