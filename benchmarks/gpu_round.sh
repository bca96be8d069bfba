#!/usr/bin/env bash
# One GPU machine's worth of checks after evaluator changes, ordered by what matters most and
# archived after every step (a run cut short still returns what it finished):
#   1. gpu_checks.sh tests sanitizer fits   (cpu == cuda on every feature, sanitizers, whole fits)
#   2. the gpu_evaluator_bench builds OTHER_BENCH... and this build's, in turn, fleet scale, default
#      lanes (gpu_evaluator_ab.sh): what the changes since their commits cost or gained
#   3. this build's lanes-per-line choices at n = 9 and 18, fleet scale, twice
#   sizes (not in the default STEPS): gpu_evaluator_bench at the fleet scale for n = 9 and 18 (cpu,
#      default lanes, batched) and at an eighth of it for n = 36 and 60 (cpu, default, 1, 16 and
#      32 lanes, batched): the reduced beam models' sizes
#   4. the PyTorch baseline at n = 9 and 18 (gpu_checks.sh torch; TORCH_NS, TORCH_PROBLEMS)
#   5. the warm 1024-robot night on the GPU with its stage times (fleet_warm_night.sh, no before),
#      last: bounded by NIGHT_SECONDS, it is the step a short lease can best lose
# The round after the 64-DOF capacity (benchmarks/RESULTS.md, "Owed on a GPU"), from a bundle:
#   STEPS="checks sizes torch night" SANITIZER_SECONDS=60 NIGHT_SECONDS=120 TORCH_NS="36 60" \
#     TORCH_PROBLEMS=128 benchmarks/gpu_round.sh /tmp/round.tar.gz
#   python3 benchmarks/gpu_sizes_table.py sizes.json torch/torch_baseline.jsonl
# Usage (from the checkout, with gpu-bundle/ beside it):
#   [STEPS="checks ab lanes night torch"] benchmarks/gpu_round.sh ARCHIVE [OTHER_BENCH ...]
#   CHECKS (default "tests sanitizer fits") the gpu_checks.sh stages of step 1; SANITIZER_SECONDS
#   (default 100) bounds each sanitizer tool; NIGHT_SECONDS (default 150) the night; THREADS
#   (default: every core) the night's cpu threads.
set -uo pipefail
cd "$(dirname "$0")/.."
ARCHIVE=${1:?usage: gpu_round.sh ARCHIVE [OTHER_BENCH ...]}
shift
STEPS=${STEPS:-checks ab lanes night torch}
has() { [[ " $STEPS " == *" $1 "* ]]; }
R=/tmp/gpu_round
rm -rf "$R" && mkdir -p "$R"
pack() { tar -czf "$ARCHIVE" -C "$(dirname "$R")" "$(basename "$R")"; }
step() { echo "== $1 ($(date -u +%H:%M:%S))" | tee -a "$R/steps.txt"; }

# The first stage links build/ to the bundle (gpu_checks.sh); the later steps need that too.
if has checks; then
  step checks
  SANITIZER_SECONDS=${SANITIZER_SECONDS:-100} benchmarks/gpu_checks.sh "$R/checks" ${CHECKS:-tests sanitizer fits} 2>&1 |
    tee "$R/checks.txt" | grep -E "gpu_checks|PASSED|FAILED|mismatch|differ|SUMMARY|identical|^[a-z_0-9]+ (cpu|cuda|auto) "
  echo "checks exit ${PIPESTATUS[0]}" | tee -a "$R/steps.txt"
  pack
fi
export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fleet='problems:1024/individuals:128/postures:2/tier:1'
if has ab && (($# > 0)); then
  step "other builds vs this one"
  REPEATS=2 FILTER="n:(3|9|18)/$fleet/lanes:0/" OUT_DIR="$R/ab" \
    benchmarks/gpu_evaluator_ab.sh "$@" build/benchmarks/gpu_evaluator_bench | tee "$R/ab.txt"
  pack
fi
if has lanes; then
  step lanes
  REPEATS=2 FILTER="n:(9|18)/$fleet/lanes:(4|8|16)/" OUT_DIR="$R/lanes" \
    benchmarks/gpu_evaluator_ab.sh build/benchmarks/gpu_evaluator_bench | tee "$R/lanes.txt"
  pack
fi
if has sizes; then
  step sizes
  build/benchmarks/gpu_evaluator_bench --benchmark_counters_tabular=true \
    --benchmark_filter="n:(9|18)/problems:1024/individuals:128/postures:2/tier:[0-2]/lanes:0/|n:(36|60)/" \
    --benchmark_out="$R/sizes.json" --benchmark_out_format=json 2>&1 | tee "$R/sizes.txt"
  pack
fi
if has torch; then
  step torch
  TORCH_NS=${TORCH_NS:-9 18} benchmarks/gpu_checks.sh "$R/torch" torch 2>&1 | tail -4
  pack
fi
if has night; then
  step "warm night"
  BACKEND=cuda THREADS=${THREADS:-$(nproc)} BEFORE_N=0 timeout "${NIGHT_SECONDS:-150}" \
    benchmarks/fleet_warm_night.sh 1024 /tmp/gpu_round_night 2>&1 | tee "$R/warm_night.txt"
  pack
fi
step done
pack
