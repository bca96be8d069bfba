#!/usr/bin/env bash
# Where the line-cost kernels spend their time at fleet scale (1024 problems x 128 individuals x
# 2 postures x 150 lines), read off the hardware counters with Nsight Compute: for n = 3, 9 and 18
# at the default lanes per line (and any other choice given), one launch of the line-cost kernel
# each. Per kernel: duration, the FP64 operations actually executed (DADD, DMUL, DFMA: the flops
# to set against the floor of docs/gpu-backend.md), the FP64 pipe's busy share, achieved
# occupancy and what limits it, the warps' stall reasons, shared-memory instructions and wavefronts, local-memory traffic,
# registers and stack. Also the SASS of the line kernels (16-byte vs 8-byte shared accesses,
# local loads and stores). Needs ncu and cuobjdump (both come with the CUDA toolkit).
#
#   benchmarks/gpu_profile.sh BENCH_BINARY OUT_DIR [LANES ...]   (default LANES: 0 = by size)
set -euo pipefail
BENCH=${1:?usage: benchmarks/gpu_profile.sh BENCH_BINARY OUT_DIR [LANES ...]}
OUT_DIR=${2:?usage: benchmarks/gpu_profile.sh BENCH_BINARY OUT_DIR [LANES ...]}
shift 2
lanes_list=("$@")
((${#lanes_list[@]})) || lanes_list=(0)
mkdir -p "$OUT_DIR"
metrics=(
  gpu__time_duration.sum
  smsp__sass_thread_inst_executed_op_dadd_pred_on.sum
  smsp__sass_thread_inst_executed_op_dmul_pred_on.sum
  smsp__sass_thread_inst_executed_op_dfma_pred_on.sum
  sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active
  sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active
  sm__warps_active.avg.pct_of_peak_sustained_active
  sm__maximum_warps_per_active_cycle_pct
  launch__occupancy_limit_shared_mem
  launch__occupancy_limit_registers
  launch__occupancy_limit_warps
  launch__occupancy_limit_blocks
  launch__registers_per_thread
  launch__shared_mem_per_block_dynamic
  launch__block_size
  smsp__inst_executed_op_shared_ld.sum
  smsp__inst_executed_op_shared_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  smsp__inst_executed_op_local_ld.sum
  smsp__inst_executed_op_local_st.sum
  lts__t_bytes.sum
  dram__bytes.sum
  smsp__inst_executed.sum
)
for lanes in "${lanes_list[@]}"; do
  for n in 3 9 18; do
    filter="BM_Evaluate/n:$n/problems:1024/individuals:128/postures:2/tier:1/lanes:$lanes/"
    ncu --kernel-name regex:LineCost --launch-count 1 --metrics "$(IFS=,; echo "${metrics[*]}")" \
      --section WarpStateStats --csv --page raw "$BENCH" --benchmark_filter="$filter" \
      > "$OUT_DIR/ncu_n${n}_lanes$lanes.csv" 2> "$OUT_DIR/ncu_n${n}_lanes$lanes.log" ||
      echo "gpu_profile: ncu failed for n = $n, lanes $lanes (see its log)" >&2
  done
done
cuobjdump -res-usage "$BENCH" 2>&1 | grep -A1 -E 'LineCost|ReduceKernel' > "$OUT_DIR/resources.txt" || true
cuobjdump -sass "$BENCH" > "$OUT_DIR/sass.txt" 2>&1 || true
# Per line kernel: 16-byte and 8-byte shared loads/stores, local loads/stores, FP64 instructions.
awk '/Function :/ {f = $3} f ~ /LineCost/ {
       if ($0 ~ /LDS\.128/) a[f, "LDS.128"]++; else if ($0 ~ /LDS\.64/) a[f, "LDS.64"]++
       if ($0 ~ /STS\.128/) a[f, "STS.128"]++; else if ($0 ~ /STS\.64/) a[f, "STS.64"]++
       if ($0 ~ /LDL/) a[f, "LDL"]++; if ($0 ~ /STL/) a[f, "STL"]++
       if ($0 ~ /DFMA|DADD|DMUL/) a[f, "FP64"]++; names[f] = 1 }
     END { for (f in names) { printf "%s", f
             split("LDS.128 LDS.64 STS.128 STS.64 LDL STL FP64", k, " ")
             for (i = 1; i <= 7; ++i) printf " %s=%d", k[i], a[f, k[i]]; print "" } }' \
  "$OUT_DIR/sass.txt" | sort > "$OUT_DIR/sass_counts.txt"
cat "$OUT_DIR/resources.txt" "$OUT_DIR/sass_counts.txt"
