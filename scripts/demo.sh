#!/usr/bin/env bash
# `make demo`: takes the example programs as far as tad's pipeline goes today.
# Today that is the tad dialect: each example in examples/ is parsed, checked
# and emitted by tadc, and the IR of the MLP example is printed. Later stages
# (AD, remat, CPU code) extend this script as they land.
set -euo pipefail
build=${1:-build}
tadc="$build/bin/tadc"

echo "== tadc examples/mlp.tad --emit=tad --opt"
"$tadc" examples/mlp.tad --emit=tad --opt
echo
for example in examples/*.tad; do
  ops=$("$tadc" "$example" --emit=tad --mlir-print-op-generic |
        grep -oE '"(tad|scf|func)\.[a-z_]+"' | sort | uniq -c | sort -rn |
        awk '{gsub(/"/, "", $2); printf "%s %s, ", $2, $1}')
  requests=$(grep -cE '^fn [a-z_0-9]+ = (grad|value_and_grad|vjp)\(' "$example" || true)
  echo "== $example: ok; $requests derivative request(s); ops: ${ops%, }"
done
echo
echo "The derivative requests are declarations until the AD pass lands (docs/language.md)."
