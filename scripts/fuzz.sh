#!/usr/bin/env bash
# Runs the frontend fuzzer for a fixed time. Seeds: test/Fuzz/corpus, the
# examples and the frontend tests. The growing corpus lives in
# BUILD/fuzz-corpus; crashes, leaks and timeouts land in BUILD/fuzz-findings.
# Exits non-zero when the fuzzer found something.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-600}
corpus="$build/fuzz-corpus"
findings="$build/fuzz-findings"
mkdir -p "$corpus" "$findings"

echo "fuzz: running tad-fuzz-frontend for ${seconds}s (corpus $corpus)"
status=0
"$build/bin/tad-fuzz-frontend" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=4096 \
  -dict=test/Fuzz/tad.dict -artifact_prefix="$findings/" -print_final_stats=1 \
  "$corpus" test/Fuzz/corpus examples test/Frontend 2>&1 |
  tee "$build/fuzz.log" | grep -E "INITED|DONE|^==|ERROR|SUMMARY|stat::" || true
status=${PIPESTATUS[0]}
if [[ $status -ne 0 ]] || ls "$findings" | grep -q .; then
  echo "fuzz: FINDINGS in $findings (exit $status); see $build/fuzz.log"
  exit 1
fi
echo "fuzz: no findings in ${seconds}s"
