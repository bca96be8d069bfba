#!/usr/bin/env bash
# Several builds of gpu_evaluator_bench on the same GPU in one run, in turn (A, B, C, A, B, C, ...)
# so that the machine's drift falls on all alike (RESULTS.md takes ratios only within one run).
# Prints one line per build, repetition and case: label and repetition, benchmark name,
# milliseconds per call, line-solves per second.
#   [REPEATS=2] [FILTER=...] [OUT_DIR=/tmp/gpu_ab] benchmarks/gpu_evaluator_ab.sh BINARY_A BINARY_B [BINARY_C ...]
set -euo pipefail
(($# >= 1)) || { echo "usage: gpu_evaluator_ab.sh BINARY_A [BINARY_B ...]" >&2; exit 2; }
REPEATS=${REPEATS:-2}
FILTER=${FILTER:-problems:1024/individuals:128/postures:2/tier:1/lanes:0/}
OUT_DIR=${OUT_DIR:-/tmp/gpu_ab}
mkdir -p "$OUT_DIR"
labels=(A B C D E F G H)
for ((r = 1; r <= REPEATS; ++r)); do
  for ((i = 1; i <= $#; ++i)); do
    binary=${!i}
    label=${labels[i - 1]}
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
    print(f"{label}{r} {b['name']} {ms:.2f} ms {b.get('items_per_second', 0.0) / 1e6:.1f} M line-solves/s")
PY
  done
done
