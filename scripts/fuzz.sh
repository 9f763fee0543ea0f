#!/usr/bin/env bash
# Runs tad's fuzzers, each for a fixed time: tad-fuzz-frontend (seeds:
# test/Fuzz/corpus, the examples and the frontend tests) and tad-fuzz-npy
# (seeds: test/Fuzz/npy-corpus). The growing corpora live in
# BUILD/fuzz-corpus and BUILD/fuzz-npy-corpus; crashes, leaks and timeouts
# land in BUILD/fuzz-findings. Exits non-zero when a fuzzer found something.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-600}
findings="$build/fuzz-findings"
mkdir -p "$build/fuzz-corpus" "$build/fuzz-npy-corpus" "$findings"

status=0
run() { # target corpus log flags... seeds...
  local target=$1 corpus=$2 log=$3
  shift 3
  echo "fuzz: running $target for ${seconds}s (corpus $corpus)"
  "$build/bin/$target" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=4096 -max_len=4096 -artifact_prefix="$findings/" \
    -print_final_stats=1 "$@" 2>&1 |
    tee "$log" | grep -E "INITED|DONE|^==|ERROR|SUMMARY|stat::" || true
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
}
run tad-fuzz-frontend "$build/fuzz-corpus" "$build/fuzz.log" \
  -dict=test/Fuzz/tad.dict "$build/fuzz-corpus" test/Fuzz/corpus examples \
  test/Frontend
run tad-fuzz-npy "$build/fuzz-npy-corpus" "$build/fuzz-npy.log" \
  "$build/fuzz-npy-corpus" test/Fuzz/npy-corpus
if [[ $status -ne 0 ]] || ls "$findings" | grep -q .; then
  echo "fuzz: FINDINGS in $findings; see $build/fuzz.log and $build/fuzz-npy.log"
  exit 1
fi
echo "fuzz: no findings in ${seconds}s each"
