#!/usr/bin/env bash
# Two builds of gpu_evaluator_bench on the same GPU in one run, alternating A, B, A, B, ... so that
# the machine's drift falls on both alike (RESULTS.md takes ratios only within one run). Prints one
# line per case and repetition: label, benchmark name, milliseconds per call, line-solves per second.
#   benchmarks/gpu_evaluator_ab.sh A_BINARY B_BINARY [REPEATS=2] [FILTER] [OUT_DIR=/tmp/gpu_ab]
set -euo pipefail
A=${1:?usage: gpu_evaluator_ab.sh A_BINARY B_BINARY [REPEATS] [FILTER] [OUT_DIR]}
B=${2:?usage: gpu_evaluator_ab.sh A_BINARY B_BINARY [REPEATS] [FILTER] [OUT_DIR]}
REPEATS=${3:-2}
FILTER=${4:-problems:1024/individuals:128/postures:2/tier:1/lanes:0/}
OUT_DIR=${5:-/tmp/gpu_ab}
mkdir -p "$OUT_DIR"
for ((r = 1; r <= REPEATS; ++r)); do
  for label in A B; do
    binary=$A; [[ $label == B ]] && binary=$B
    json="$OUT_DIR/${label}_$r.json"
    "$binary" --benchmark_filter="$FILTER" --benchmark_out="$json" --benchmark_out_format=json \
      > /dev/null 2> "$OUT_DIR/${label}_$r.log"
    python3 - "$json" "$label" "$r" <<'PY'
import json, sys
path, label, r = sys.argv[1:]
for b in json.load(open(path))["benchmarks"]:
    if b.get("error_occurred"):
        print(f"{label}{r} {b['name']} error: {b.get('error_message')}")
        continue
    ms = b["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
    rate = b.get("line_solves_per_s", b.get("items_per_second", 0.0))
    print(f"{label}{r} {b['name']} {ms:.2f} ms {rate / 1e6:.1f} M line-solves/s")
PY
  done
done
