#!/usr/bin/env bash
# cpu_evaluator_bench with the NumPy baseline measured in the same command: exports the bench's
# random batches (n = 3, 9, 18: 80 individuals × 150 lines, the systems of its random/n:N rows),
# then runs ROUNDS rounds of [time NumPy's batched solve and whole cost on them
# (benchmarks/numpy_baseline.py), run the bench, whose x_numpy_solve / x_numpy_cost counters divide
# by that round's NumPy figures], and times NumPy once more at the end.
#
# On a shared machine both sides move by up to 2× from minute to minute, and one round catches
# each side in whatever state the machine was in. So the summary gives, for every bench row, the
# ratio of each round (frfit and NumPy a minute apart), their median, and the best of each side
# over the whole command divided one by the other (each side's least disturbed figure: the same
# rule for both, as `timeit` takes its minimum).
#
#   ROUNDS=N benchmarks/cpu_vs_numpy.sh [build-dir] [benchmark options...]     (ROUNDS: default 1)
#   e.g. ROUNDS=5 benchmarks/cpu_vs_numpy.sh build --benchmark_filter='random/n:(3|9|18)/default/threads:2'
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
shift || true
rounds="${ROUNDS:-1}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "error: ROUNDS must be a positive integer, got '$rounds'" >&2; exit 1; }
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
for ((r = 1; r <= rounds; ++r)); do
  [[ "$rounds" == 1 ]] || echo "== round $r of $rounds" >&2
  numpy_pass "$tmp/numpy_$r.jsonl"
  FRFIT_NUMPY_BASELINE="$tmp/numpy_$r.jsonl" "$build/benchmarks/cpu_evaluator_bench" \
    --benchmark_counters_tabular=true --benchmark_out="$tmp/bench_$r.json" \
    --benchmark_out_format=json "$@"
done
numpy_pass "$tmp/numpy_$((rounds + 1)).jsonl"
python3 - "$tmp" "$rounds" <<'PY'
import json, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
numpy = [[json.loads(l) for l in open(f"{tmp}/numpy_{r}.jsonl")] for r in range(1, rounds + 2)]
benches = [json.load(open(f"{tmp}/bench_{r}.json")) for r in range(1, rounds + 1)]

def rows(bench):  # run name -> row: the median where repetitions were asked for
    out = {}
    for b in bench["benchmarks"]:
        if b.get("aggregate_name", "median") != "median" or "error_occurred" in b:
            continue
        out[b["run_name"].replace("/real_time", "").replace("/iterations:10", "")] = b
    return out

by_round = [rows(b) for b in benches]
loads = ", ".join(str(b["context"].get("load_avg", ["?"])[0]) for b in benches)
print(f"\nSummary of {rounds} round(s) (medians where repetitions were asked for; load average at "
      f"the bench's starts: {loads})")
print(f"{'row':<44} {'ms':>8} {'line-solves/s':>14} {'GFLOP/s':>8} {'of peak':>8} {'x numpy solve':>14} {'x numpy cost':>13}")
for r, round_rows in enumerate(by_round, 1):
    if rounds > 1:
        print(f"round {r}")
    for name, b in round_rows.items():
        cell = lambda key, fmt: format(b[key], fmt) if key in b else ""
        print(f"{name:<44} {b['real_time']:8.3f} {cell('line_solves_per_s', '14.4g')} {cell('gflops', '8.2f')} "
              f"{cell('peak_fraction', '8.1%')} {cell('x_numpy_solve', '14.2f')} {cell('x_numpy_cost', '13.2f')}")

print(f"\nNumPy {numpy[0][0]['numpy']}, line-solves/s of each pass (pass r ran just before round r's bench)")
print(f"{'n':>3} {'solve, pass by pass':>40} {'cost, pass by pass':>40} {'rel diff vs cpu':>16}")
for i, first in enumerate(numpy[0]):
    solve = " ".join(f"{p[i]['solve_line_solves_per_s'] / 1e6:.3g}M" for p in numpy)
    cost = " ".join(f"{p[i]['cost_line_solves_per_s'] / 1e6:.3g}M" for p in numpy)
    print(f"{first['n']:>3} {solve:>40} {cost:>40} {first['max_rel_diff_vs_cpu']:16.2e}")

best_numpy_solve = {}  # n -> NumPy's fastest bare-solve pass of the command
for p in numpy:
    for x in p:
        best_numpy_solve[x["n"]] = max(best_numpy_solve.get(x["n"], 0.0), x["solve_line_solves_per_s"])
print("\nx NumPy's bare batched solve: round by round, their median, and best over best")
print(f"{'row':<44} {'round by round':>40} {'median':>7} {'best/best':>10}")
for name in by_round[0]:
    found = [rr[name] for rr in by_round if name in rr and "x_numpy_solve" in rr[name]]
    if not found:
        continue
    n = int(found[0]["n"])
    per_round = [b["x_numpy_solve"] for b in found]
    best = max(b["line_solves_per_s"] for b in found) / best_numpy_solve[n]
    shown = " ".join(f"{x:.2f}" for x in per_round)
    print(f"{name:<44} {shown:>40} {statistics.median(per_round):7.2f} {best:10.2f}")
PY
