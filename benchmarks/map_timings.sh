#!/usr/bin/env bash
# Whole-command timing of frfit map (docs/posture-map.md): the KUKA model over 10 010 postures
# (z2 in 91 steps of 1°, z3 in 110 steps of 1.1°) on 1 and 2 threads, and as the baseline in the
# same run what a user had before: one `frfit modal --q` process per posture, for 50 postures.
#   benchmarks/map_timings.sh [build]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
data=datasets/kuka_kr90
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/frfit" fit --model $data/model.yaml --config $data/fit.yaml --quiet --out "$tmp/kuka.h5" \
  --frf $data/frf_milling_inertance.h5,$data/frf_reach_inertance.h5,$data/frf_folded_inertance.h5 >/dev/null
map() {
  "$build/frfit" map --model $data/model.yaml --posture milling --params "$tmp/kuka.h5" \
    --grid 'z2=30:120:1,z3=-160:-40:1.1' --max-hz 60 --threads "$1" --json |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print(len(j["points"]), j["wall_seconds"])'
}
read -r n1 t1 < <(map 1)
read -r n2 t2 < <(map 2)
start=$(date +%s.%N)
for k in $(seq 0 49); do
  "$build/frfit" modal --model $data/model.yaml --posture milling --params "$tmp/kuka.h5" \
    --q "z2=$((30 + k)),z3=-100" --json >/dev/null
done
per_modal=$(python3 -c "import time; print(($(date +%s.%N) - $start) / 50)")
python3 - "$n1" "$t1" "$t2" "$per_modal" <<'PY'
import sys
n, t1, t2, modal = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
print(f"map, {n} postures: 1 thread {t1:.2f} s ({1e3 * t1 / n:.2f} ms per posture), "
      f"2 threads {t2:.2f} s ({1e3 * t2 / n:.2f} ms per posture)")
print(f"baseline, one 'frfit modal --q' process per posture: {1e3 * modal:.1f} ms per posture "
      f"(modes and their 1σ only): map on 2 threads is {modal * n / t2:.0f}x faster per posture")
PY
