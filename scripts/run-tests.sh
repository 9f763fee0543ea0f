#!/usr/bin/env bash
# Runs the lit suite and the unit tests (one lit run over build/test, whose
# Unit/ suite wraps the GoogleTest binaries) and ends with one summary line:
#   N passed, N failed[, N skipped]
# Exits non-zero when any test fails.
set -uo pipefail
build=${1:-build}
results="$build/test-results.json"
rm -f "$results"

lit=${LIT:-/usr/lib/llvm-22/bin/lit}
# --time-tests: the slowest tests and a histogram of the times, before
# the summary (and each test's time in $results).
"$lit" -sv --time-tests --output "$results" "$build/test" "$build/test/Unit"
lit_status=$?

python3 - "$results" "$lit_status" <<'PY'
import json, sys
path, lit_status = sys.argv[1], int(sys.argv[2])
try:
    tests = json.load(open(path))["tests"]
except (OSError, ValueError, KeyError) as err:
    print(f"run-tests: no lit results ({err})", file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)
passed = failed = skipped = 0
for t in tests:
    code = t["code"]
    if code in ("PASS", "XFAIL"):
        passed += 1
    elif code in ("UNSUPPORTED", "SKIPPED", "EXCLUDED"):
        skipped += 1
    else:
        failed += 1
if lit_status != 0 and failed == 0:
    failed = 1  # lit failed before it could report a test (a config error).
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed else 0)
PY
