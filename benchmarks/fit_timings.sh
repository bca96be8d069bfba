#!/usr/bin/env bash
# Whole-command timings of `frfit fit` on the two datasets: the 3-joint validation example
# (paper section 4, seeds 1..10) and the KUKA KR90 (section 5, seeds 1..3), cpu backend.
# Prints one row per run (wall time measured around the whole process, evaluations and
# evaluations/s from the --json result) and a mean per dataset.
#
#   benchmarks/fit_timings.sh [build-dir] [threads] [config]
# defaults: build, 0 = every core, fit.yaml (least squares); fit_paper.yaml times the paper's
# GA + Nelder-Mead settings.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
threads="${2:-0}"
config="${3:-fit.yaml}"
cli="$build/frfit"
[[ -x "$cli" ]] || cli="$root/$build/frfit"
[[ -x "$cli" ]] || { echo "error: $build/frfit not found (build it first)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

printf '%-11s %5s %9s %12s %14s %12s %s\n' dataset seed wall_s evaluations evaluations/s cost termination
run() {  # dataset seeds...
  local dataset="$1"; shift
  local dir="$root/datasets/$dataset"
  for seed in "$@"; do
    local t0 t1
    t0=$(date +%s.%N)
    "$cli" fit --model "$dir/model.yaml" --frf "$dir/frf_milling_inertance.h5" --config "$dir/$config" \
      --seed "$seed" --backend cpu --threads "$threads" --json >"$tmp/$dataset.$seed.json"
    t1=$(date +%s.%N)
    python3 - "$tmp/$dataset.$seed.json" "$dataset" "$seed" "$t0" "$t1" <<'PY' | tee -a "$tmp/rows"
import json, sys
j = json.load(open(sys.argv[1]))
wall = float(sys.argv[5]) - float(sys.argv[4])
print(f"{sys.argv[2]:<11} {sys.argv[3]:>5} {wall:9.2f} {j['evaluations']:12d} {j['evaluations'] / wall:14.0f} "
      f"{j['cost']:12.4e} {j['termination']}")
PY
  done
}
run paper_3dof 1 2 3 4 5 6 7 8 9 10
run kuka_kr90 1 2 3
python3 - "$tmp/rows" <<'PY'
import sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    rows[f[0]].append((float(f[2]), int(f[3])))
for name, r in rows.items():
    wall = sum(w for w, _ in r) / len(r)
    ev = sum(e for _, e in r) / len(r)
    print(f"mean {name:<11} {len(r):2d} runs: {wall:.2f} s, {ev:.0f} evaluations, {ev / wall:.0f} evaluations/s")
PY
