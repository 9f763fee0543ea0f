#!/usr/bin/env bash
# Runs the suite on the sanitizer build (make sanitize) and counts the
# sanitizer reports, which lit.cfg.py sends to BUILD/sanitizer-reports/.
# Exits non-zero when a test failed or there is any report.
set -uo pipefail
build=${1:-build-sanitize}
reports="$build/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
scripts/run-tests.sh "$build"
status=$?
# An allocation too large for the machine returns null
# (allocator_may_return_null=1), and the runtime reports its own located
# error; ASan logs a warning for it, which is expected, not a report.
count=0
expected=0
shown=()
for f in "$reports"/*; do
  [[ -f $f ]] || continue
  if ! grep -qE "ERROR|runtime error|LeakSanitizer" "$f" &&
    grep -q "WARNING: AddressSanitizer failed to allocate" "$f"; then
    expected=$((expected + 1))
  else
    count=$((count + 1))
    shown+=("$f")
  fi
done
echo "sanitize: $count sanitizer report(s) in $reports" \
  "($expected warning(s) of an allocation too large, returned as null)"
for f in "${shown[@]:0:5}"; do
  echo "== $f"
  head -30 "$f"
done
[[ $count -eq 0 ]] || exit 1
exit $status
