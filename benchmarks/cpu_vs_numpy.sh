#!/usr/bin/env bash
# cpu_evaluator_bench with the NumPy baseline measured in the same command: exports the bench's
# random batches (n = 3, 9, 18: 80 individuals × 150 lines, the systems of its random/n:N rows),
# times NumPy's batched solve and whole cost on them (benchmarks/numpy_baseline.py), runs the
# bench, whose x_numpy_solve / x_numpy_cost counters divide by those figures, and times NumPy once
# more, so that the spread of the baseline on a shared machine shows next to the ratios.
#
#   benchmarks/cpu_vs_numpy.sh [build-dir] [benchmark options...]
#   e.g. benchmarks/cpu_vs_numpy.sh build --benchmark_filter='random|peak'
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
shift || true
[[ -x "$build/benchmarks/cpu_evaluator_bench" ]] || build="$root/$build"
[[ -x "$build/benchmarks/cpu_evaluator_bench" ]] || { echo "error: $build/benchmarks/cpu_evaluator_bench not found (build it first)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

numpy_pass() {  # output file
  for n in 3 9 18; do
    python3 "$root/benchmarks/numpy_baseline.py" "$tmp/batch_n$n.h5" --json >>"$1"
  done
}
for n in 3 9 18; do
  "$build/benchmarks/export_random_batch" --n "$n" --problems 1 --individuals 80 --postures 1 \
    --out "$tmp/batch_n$n.h5" >&2
done
numpy_pass "$tmp/numpy_first.jsonl"
FRFIT_NUMPY_BASELINE="$tmp/numpy_first.jsonl" "$build/benchmarks/cpu_evaluator_bench" \
  --benchmark_counters_tabular=true --benchmark_out="$tmp/bench.json" --benchmark_out_format=json "$@"
numpy_pass "$tmp/numpy_second.jsonl"
python3 - "$tmp/numpy_first.jsonl" "$tmp/numpy_second.jsonl" "$tmp/bench.json" <<'PY'
import json, sys
first = [json.loads(l) for l in open(sys.argv[1])]
second = [json.loads(l) for l in open(sys.argv[2])]
bench = json.load(open(sys.argv[3]))
print(f"\nSummary (medians where repetitions were asked for; load average at start "
      f"{bench['context'].get('load_avg', ['?'])[0]})")
print(f"{'row':<44} {'ms':>8} {'line-solves/s':>14} {'GFLOP/s':>8} {'of peak':>8} {'x numpy solve':>14} {'x numpy cost':>13}")
for b in bench["benchmarks"]:
    if b.get("aggregate_name", "median") != "median" or "error_occurred" in b:
        continue
    name = b["run_name"].replace("/real_time", "").replace("/iterations:10", "")
    rate = b.get("line_solves_per_s")
    cell = lambda key, fmt: format(b[key], fmt) if key in b else ""
    print(f"{name:<44} {b['real_time']:8.3f} {cell('line_solves_per_s', '14.4g')} {cell('gflops', '8.2f')} "
          f"{cell('peak_fraction', '8.1%')} {cell('x_numpy_solve', '14.2f')} {cell('x_numpy_cost', '13.2f')}")
print(f"\nNumPy {first[0]['numpy']} (line-solves/s; x_numpy_* above divide by the first pass)")
print(f"{'n':>3} {'solve, 1st':>12} {'solve, 2nd':>12} {'cost, 1st':>12} {'cost, 2nd':>12} {'rel diff vs cpu':>16}")
for a, b in zip(first, second):
    print(f"{a['n']:>3} {a['solve_line_solves_per_s']:12.4g} {b['solve_line_solves_per_s']:12.4g} "
          f"{a['cost_line_solves_per_s']:12.4g} {b['cost_line_solves_per_s']:12.4g} {a['max_rel_diff_vs_cpu']:16.2e}")
PY
