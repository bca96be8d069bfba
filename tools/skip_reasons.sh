#!/usr/bin/env bash
# Prints why each skipped test skipped, grouped by reason: ctest lists a skipped GoogleTest test as
# "(Skipped)" without the reason its GTEST_SKIP() gave (no GPU, no python3 with h5py, ...), and a
# skip is not a pass, so the reader of a test run must see what did not run and why.
#   tools/skip_reasons.sh [build/Testing/Temporary/LastTest.log]
set -euo pipefail
log="${1:-build/Testing/Temporary/LastTest.log}"
[[ -f "$log" ]] || { echo "skip_reasons: $log: no ctest log (run ctest first)" >&2; exit 1; }
# GoogleTest prints "FILE:LINE: Skipped", then the reason (possibly empty), then
# "[  SKIPPED ] Suite.Name (N ms)".
awk '
  /:[0-9]+: Skipped$/ { want = 1; reason = ""; next }
  want && /^\[  SKIPPED \] [^ ]+ \(/ {
    if (reason == "") reason = "(no reason given)"
    count[reason]++
    names[reason] = names[reason] (count[reason] > 1 ? ", " : "") $4
    want = 0; next
  }
  /^\[ / { want = 0 }  # another test line: that skip message is over
  want { reason = reason (reason == "" ? "" : " ") $0 }
  END {
    for (r in count) printf "skipped %d test%s: %s\n  %s\n", count[r], (count[r] > 1 ? "s" : ""), r, names[r]
  }
' "$log"
