#!/bin/bash
# Runs NVIDIA's compute-sanitizer over GPU executables, on a GPU machine:
# memcheck (out-of-bounds and misaligned accesses, device memory leaked at
# exit) and initcheck (reads of device memory never written) on every
# program of a bundle from scripts/gpu-bundle.py, and memcheck on every op
# case of a folder from test/Execution/op_check.py --bundle (docs/gpu-testing.md).
#
#   scripts/gpu-sanitize.sh BUNDLE [OPS]
#
# Prints one line per run with the sanitizer's summaries, and the first
# lines of its report for a run that fails. Exits non-zero if any failed.
set -u
bundle=$1 ops=${2:-}
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
[ -n "$cs" ] || { echo "gpu-sanitize: no compute-sanitizer on PATH or in /usr/local/cuda/bin" >&2; exit 2; }
"$cs" --version | tail -1
out=$(mktemp -d)
failed=0
sanitize() { # NAME TOOL PROGRAM ARGS...
  local name=$1 tool=$2 report rc
  shift 2
  report=$(timeout 300 "$cs" --tool "$tool" --leak-check full --error-exitcode 9 "$@" 2>&1)
  rc=$?
  echo "$tool $name: exit $rc," $(echo "$report" | grep -E "ERROR SUMMARY|LEAK SUMMARY" | sed 's/^========= //')
  if [ $rc -ne 0 ]; then
    echo "$report" | grep -E "^=========" | head -25
    failed=$((failed + 1))
  fi
}
for program in "$bundle"/*; do
  [ -f "$program" ] && [ -x "$program" ] || continue
  name=$(basename "$program")
  for tool in memcheck initcheck; do
    sanitize "$name" $tool "$program" --seed 0 --output-dir "$out/$name"
  done
done
if [ -n "$ops" ]; then
  for folder in "$ops"/*/; do
    name=$(basename "$folder")
    sanitize "$name" memcheck "$folder/program" --inputs "$folder" --output-dir "$out/$name"
  done
fi
rm -rf "$out"
[ $failed -eq 0 ] && echo "gpu-sanitize: no errors" || echo "gpu-sanitize: $failed runs failed"
exit $((failed > 0))
