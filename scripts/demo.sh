#!/usr/bin/env bash
# `make demo`: takes the example programs as far as tad's pipeline goes today.
# Today that is the tad dialect: each example in examples/mlir is parsed,
# verified and canonicalized by tad-opt. Later stages (frontend, AD, remat,
# CPU code) extend this script as they land.
set -euo pipefail
build=${1:-build}
opt="$build/bin/tad-opt"

for example in examples/mlir/*.mlir; do
  echo "== $example: parse, verify, canonicalize (tad-opt --canonicalize)"
  "$opt" --canonicalize "$example"
  ops=$("$opt" --canonicalize --mlir-print-op-generic "$example" |
        grep -o '"tad\.[a-z_]*"' | sort | uniq -c | sort -rn |
        awk '{printf "%s %s, ", $2, $1}')
  echo "== tad ops after canonicalization: ${ops%, }"
done
