#!/usr/bin/env bash
# One GPU machine's worth of checks after evaluator changes, ordered by what matters most and
# archived after every step (a run cut short still returns what it finished):
#   1. gpu_checks.sh tests sanitizer fits   (cpu == cuda on every feature, sanitizers, whole fits)
#   2. OLD_BENCH against this build's gpu_evaluator_bench, alternating, fleet scale, default lanes
#      (gpu_evaluator_ab.sh): what the changes since OLD_BENCH's commit cost or gained
#   3. this build's lanes-per-line choices at n = 9 and 18, fleet scale, twice
#   4. the PyTorch baseline at n = 9 and 18 (gpu_checks.sh torch)
#   5. the warm 1024-robot night on the GPU with its stage times (fleet_warm_night.sh, no before)
# Usage (from the checkout, with gpu-bundle/ beside it): benchmarks/gpu_round.sh OLD_BENCH ARCHIVE
#   SANITIZER_SECONDS (default 100) bounds each sanitizer tool; NIGHT_SECONDS (default 150) the night.
set -uo pipefail
cd "$(dirname "$0")/.."
OLD_BENCH=${1:?usage: gpu_round.sh OLD_BENCH ARCHIVE}
ARCHIVE=${2:?usage: gpu_round.sh OLD_BENCH ARCHIVE}
R=/tmp/gpu_round
rm -rf "$R" && mkdir -p "$R"
pack() { tar -czf "$ARCHIVE" -C "$(dirname "$R")" "$(basename "$R")"; }
step() { echo "== $1 ($(date -u +%H:%M:%S))" | tee -a "$R/steps.txt"; }

step checks
SANITIZER_SECONDS=${SANITIZER_SECONDS:-100} benchmarks/gpu_checks.sh "$R/checks" tests sanitizer fits 2>&1 |
  tee "$R/checks.txt" | grep -E "gpu_checks|PASSED|FAILED|mismatch|differ|SUMMARY|identical|^[a-z_0-9]+ (cpu|cuda|auto) " 
echo "checks exit ${PIPESTATUS[0]}" | tee -a "$R/steps.txt"
pack
export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fleet='problems:1024/individuals:128/postures:2/tier:1'
step "old vs new"
benchmarks/gpu_evaluator_ab.sh "$OLD_BENCH" build/benchmarks/gpu_evaluator_bench 2 \
  "n:(3|9|18)/$fleet/lanes:0/" "$R/ab" | tee "$R/ab.txt"
pack
step lanes
benchmarks/gpu_evaluator_ab.sh build/benchmarks/gpu_evaluator_bench build/benchmarks/gpu_evaluator_bench 1 \
  "n:(9|18)/$fleet/lanes:(4|8|16)/" "$R/lanes" | tee "$R/lanes.txt"
pack
step torch
TORCH_NS="9 18" benchmarks/gpu_checks.sh "$R/torch" torch 2>&1 | tail -4
pack
step "warm night"
BACKEND=cuda THREADS=0 BEFORE_N=0 timeout "${NIGHT_SECONDS:-150}" benchmarks/fleet_warm_night.sh 1024 /tmp/gpu_round_night \
  2>&1 | tee "$R/warm_night.txt"
step done
pack
