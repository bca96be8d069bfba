#!/usr/bin/env bash
# User cycles and instructions per Evaluate call of two builds of the cpu backend, in alternating
# pairs (benchmarks/cpu_evaluate_calls.cc: 80 individuals × 150 lines of the random batch).
#
#   benchmarks/cpu_cycles.sh BUILD_A BUILD_B [N] [PAIRS] [SIMD]      (defaults: 9, 15, avx2)
#
# Each pair runs A then B, each twice (CALLS and 10 calls) under `perf stat`, and takes the
# difference, so start-up and setup drop out. On a shared machine the cycles of one run move by
# up to 1.7×, while neighbouring runs move together: the per-pair ratio B/A is what to read (its
# median and quartiles), not the runs' own figures. Instructions per call are exact. The check
# line compares the sums of costs the two builds print: equal sums mean the same bits.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BUILD_A BUILD_B [N] [PAIRS] [SIMD]" >&2
  exit 2
fi
a="$1/benchmarks/cpu_evaluate_calls"
b="$2/benchmarks/cpu_evaluate_calls"
n="${3:-9}"
pairs="${4:-15}"
simd="${5:-avx2}"
calls=60
for bin in "$a" "$b"; do
  [[ -x "$bin" ]] || { echo "$0: no $bin (build the cpu_evaluate_calls target)" >&2; exit 2; }
done
command -v perf > /dev/null || { echo "$0: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }

stat_file=$(mktemp)
trap 'rm -f "$stat_file"' EXIT
# "cycles instructions" of one run of `calls` calls.
counts() {
  perf stat -x, -e cycles:u,instructions:u -o "$stat_file" "$1" "$n" "$2" "$simd" > /dev/null
  echo "$(grep ',cycles' "$stat_file" | cut -d, -f1) $(grep ',instructions' "$stat_file" | cut -d, -f1)"
}
per_call() {
  read -r c1 i1 <<< "$(counts "$1" "$calls")"
  read -r c0 i0 <<< "$(counts "$1" 10)"
  echo "$(( (c1 - c0) / (calls - 10) )) $(( (i1 - i0) / (calls - 10) ))"
}

echo "# n = $n, $simd, 1 thread, $pairs pairs of $((calls - 10)) calls; A = $1, B = $2"
for ((p = 0; p < pairs; ++p)); do
  echo "$(per_call "$a") $(per_call "$b")"
done | python3 -c '
import statistics, sys
rows = [list(map(int, line.split())) for line in sys.stdin]
ratios = sorted(b / a for a, _, b, _ in rows)
q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
print("cycles per call, B / A: median %.3f, quartiles %.3f-%.3f" % (statistics.median(ratios), q[0], q[2]))
print("fewest cycles per call: A %.2f M, B %.2f M" % (min(r[0] for r in rows) / 1e6, min(r[2] for r in rows) / 1e6))
print("instructions per call: A %.3f M, B %.3f M" % (rows[0][1] / 1e6, rows[0][3] / 1e6))
'
sum_a=$("$a" "$n" 3 "$simd")
sum_b=$("$b" "$n" 3 "$simd")
if [[ "$sum_a" == "$sum_b" ]]; then
  echo "check: the same sum of costs ($sum_a)"
else
  echo "check: the sums of costs DIFFER: A $sum_a, B $sum_b"
fi
