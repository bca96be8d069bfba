#!/usr/bin/env bash
# Everything the cuda backend must show on a machine with an NVIDIA GPU (docs/gpu-backend.md,
# "GPU checks"), in stages that each fit in a few minutes, writing logs and JSON to RESULTS_DIR:
#   tests   the cuda tests (*Cuda*): cpu == cuda bit for bit (mismatch counts), batched tier to
#           1e-10, statuses, every kernel feature (cuda/feature_batch.h), dataset populations and
#           whole fits on both backends; and backend auto's choice for one fit (FitBackend.*)
#   sanitizer  compute-sanitizer memcheck over the evaluator and dataset-batch cuda tests, racecheck
#           and synccheck over the two bit-identity tests (every lanes-per-line choice; RACE_FILTER
#           to choose other tests); each tool is
#           stopped after SANITIZER_SECONDS (default 300) and says so
#   bench   gpu_evaluator_bench: cpu (2 threads) vs both cuda tiers, one robot to fleet scale
#   torch   the PyTorch baseline (torch_baseline.py) on the fleet-scale batches, n = 3, 9, 18
#           (TORCH_NS to choose; TORCH_PROBLEMS, default 1024, the batch's problems)
#   fits    whole `frfit fit` runs of paper_3dof, kuka_kr90 and six_axis_18dof on cpu, cuda and
#           auto, same seed: wall times, the backend auto chose, the parameters compared with ==
#   fleet   BACKEND=cuda fleet_timings.sh 64, fleet_throughput.sh 1024 and fleet_warm_night.sh 1024
# Usage: benchmarks/gpu_checks.sh RESULTS_DIR [stage ...]   (no stage: all, which takes longer)
#
# Binaries come from build/ — a normal build (tools/build.sh) where the build dependencies are
# installed, or, on a GPU machine without them, the bundle tools/gpu_bundle.sh made on a build
# machine (carried as gpu-bundle/ next to this checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
RESULTS_DIR=${1:?usage: benchmarks/gpu_checks.sh RESULTS_DIR [tests|sanitizer|bench|torch|fits|fleet ...]}
shift
stages=("$@")
((${#stages[@]})) || stages=(tests sanitizer bench torch fits fleet)
mkdir -p "$RESULTS_DIR"

if [[ -d gpu-bundle && ( ! -e build || $(readlink build) == gpu-bundle ) ]]; then
  # The test binaries open datasets/ and build/frfit under the source folder they were compiled
  # in; point that path at this checkout when it does not exist here. (A second run finds both
  # links made by the first.)
  source_dir=$(cat gpu-bundle/SOURCE_DIR)
  if [[ ! -e $source_dir ]]; then mkdir -p "$(dirname "$source_dir")"; ln -s "$PWD" "$source_dir"; fi
  [[ -e build ]] || ln -s gpu-bundle build
  export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  commit=$(paste -sd' ' gpu-bundle/COMMIT)
elif [[ -x build/frfit ]]; then
  commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
else
  echo "gpu_checks: no build/ and no gpu-bundle/: run tools/build.sh (or tools/gpu_bundle.sh elsewhere)" >&2
  exit 1
fi
# Every binary a stage runs, not only frfit: the tests and the benchmark also load cuBLAS and
# cuSOLVER, which the bundle leaves to the GPU machine's CUDA installation.
binaries=(build/frfit build/frfit-make-fleet build/tests/frfit_tests
          build/benchmarks/gpu_evaluator_bench build/benchmarks/export_random_batch)
missing_libraries() { for b in "${binaries[@]}"; do ldd "$b" | sed -n "s|^\s*\(.*not found\)|$b: \1|p"; done; }
if [[ -n $(missing_libraries) ]]; then
  # CUDA's libraries may only be there as the Python wheels PyTorch brings.
  for d in $(python3 -c 'import nvidia, os; [print(os.path.join(p, s, "lib")) for p in nvidia.__path__ for s in os.listdir(p)]' 2>/dev/null); do
    [[ -d $d ]] && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d"
  done
  export LD_LIBRARY_PATH
  if [[ -n $(missing_libraries) ]]; then
    missing_libraries >&2
    echo "gpu_checks: libraries missing (above; LD_LIBRARY_PATH=$LD_LIBRARY_PATH)" >&2
    exit 1
  fi
fi

# A GPU machine hands back only a few files: everything also goes into RESULTS_DIR.tar.gz, written
# again after every stage so that a run cut short still returns what it finished.
pack() { tar -czf "$RESULTS_DIR.tar.gz" -C "$(dirname "$RESULTS_DIR")" "$(basename "$RESULTS_DIR")"; }
failed=0

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $commit"
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
} | tee "$RESULTS_DIR/machine.txt"

for stage in "${stages[@]}"; do
  echo "== $stage ($(date -u +%H:%M:%S))"
  case $stage in
    tests)
      # The summary lines only; the exit status is the test binary's (a loader error or a failed
      # test must not read as a pass).
      set +e
      build/tests/frfit_tests --gtest_filter='*Cuda*:FitBackend.*' --gtest_output="json:$RESULTS_DIR/cuda_tests.json" \
        > "$RESULTS_DIR/cuda_tests.log" 2>&1
      status=$?
      set -e
      grep -E '^\[  (FAILED|PASSED|SKIPPED) |mismatch|Failure|error' "$RESULTS_DIR/cuda_tests.log" || true
      if ((status != 0)); then
        echo "gpu_checks: the cuda tests exited with status $status (log: $RESULTS_DIR/cuda_tests.log)" >&2
        failed=1
      fi
      # On the machine this script is for, a skipped cuda test means the GPU was not seen.
      skipped=$(grep -c '^\[  SKIPPED \] .*Cuda' "$RESULTS_DIR/cuda_tests.log" || true)
      if ((skipped > 0)); then
        echo "gpu_checks: $skipped cuda tests skipped: no usable GPU seen by the tests" >&2
        failed=1
      fi
      ;;
    sanitizer)
      sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
      run_sanitizer() {  # tool filter
        local status=0
        timeout "${SANITIZER_SECONDS:-300}" "$sanitizer" --tool "$1" --error-exitcode 97 \
          build/tests/frfit_tests --gtest_filter="$2" > "$RESULTS_DIR/sanitizer_$1.log" 2>&1 || status=$?
        echo "$1 ($2): $(grep -E '^=+ (ERROR SUMMARY|RACECHECK SUMMARY)' "$RESULTS_DIR/sanitizer_$1.log" | tail -1) exit $status"
        case $status in
          0) ;;
          124) echo "gpu_checks: $1 stopped after ${SANITIZER_SECONDS:-300} s (incomplete, not a failure)" ;;
          *) echo "gpu_checks: $1 found errors or the tests failed (log: sanitizer_$1.log)" >&2; failed=1 ;;
        esac
      }
      # Not the out-of-memory test: memcheck reports its deliberately failed allocations as errors.
      run_sanitizer memcheck \
        'CudaEvaluator.*:CudaDatasetBatch.*:Datasets/CudaDataset.*:-CudaEvaluator.OutOfDeviceMemory*'
      bit_identity=${RACE_FILTER:-CudaEvaluator.DeterministicTierEqualsCpuBitForBit:CudaEvaluator.EveryKernelFeatureEqualsCpuBitForBit}
      run_sanitizer racecheck "$bit_identity"
      run_sanitizer synccheck "$bit_identity"
      ;;
    bench)
      build/benchmarks/gpu_evaluator_bench --benchmark_counters_tabular=true \
        --benchmark_filter="${BENCH_FILTER:-.}" \
        --benchmark_out="$RESULTS_DIR/gpu_evaluator_bench.json" --benchmark_out_format=json \
        2>&1 | tee "$RESULTS_DIR/gpu_evaluator_bench.log"
      ;;
    torch)
      for n in ${TORCH_NS:-3 9 18}; do
        build/benchmarks/export_random_batch --n $n --problems "${TORCH_PROBLEMS:-1024}" --individuals 128 --postures 2 \
          --out "/tmp/frfit_batch_n$n.h5"
        python3 benchmarks/torch_baseline.py "/tmp/frfit_batch_n$n.h5" --chunk-mib 8192 --json | tee -a "$RESULTS_DIR/torch_baseline.jsonl"
        rm -f "/tmp/frfit_batch_n$n.h5"
      done
      ;;
    fits)
      for dataset in paper_3dof kuka_kr90 six_axis_18dof; do
        frf=$(ls datasets/$dataset/frf_milling_inertance.h5)
        for backend in cpu cuda auto; do
          start=$(date +%s.%N)
          build/frfit fit --model datasets/$dataset/model.yaml --config datasets/$dataset/fit.yaml \
            --frf "$frf" --seed 1 --backend $backend --quiet --json > "$RESULTS_DIR/fit_${dataset}_$backend.json"
          end=$(date +%s.%N)
          echo "$dataset $backend $(python3 -c "print(round($end - $start, 3))") s" | tee -a "$RESULTS_DIR/fits.txt"
        done
        python3 - "$RESULTS_DIR" "$dataset" <<'PY' | tee -a "$RESULTS_DIR/fits.txt"
import json, sys
d, name = sys.argv[1], sys.argv[2]
cpu = json.load(open(f"{d}/fit_{name}_cpu.json"))
gpu = json.load(open(f"{d}/fit_{name}_cuda.json"))
auto = json.load(open(f"{d}/fit_{name}_auto.json"))
same = cpu["parameters"] == gpu["parameters"] and cpu["cost"] == gpu["cost"]
print(f"{name}: parameters and cost identical on cpu and cuda: {same} "
      f"(evaluations {cpu['evaluations']} / {gpu['evaluations']}); auto chose {auto['backend']}")
PY
      done
      ;;
    fleet)
      BACKEND=cuda benchmarks/fleet_timings.sh 64 /tmp/frfit_fleet64 2>&1 | tee "$RESULTS_DIR/fleet64_cuda.txt"
      BACKEND=cuda benchmarks/fleet_throughput.sh 1024 /tmp/frfit_fleet1024 2>&1 | tee "$RESULTS_DIR/fleet1024_cuda.txt"
      BACKEND=cuda THREADS=0 benchmarks/fleet_warm_night.sh 1024 /tmp/frfit_warm_night 2>&1 |
        tee "$RESULTS_DIR/warm_night1024_cuda.txt"
      ;;
    *) echo "gpu_checks: unknown stage '$stage'" >&2; exit 2 ;;
  esac
  pack
done
echo "gpu_checks: results in $RESULTS_DIR and $RESULTS_DIR.tar.gz"
exit $failed
