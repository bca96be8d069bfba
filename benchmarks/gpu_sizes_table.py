#!/usr/bin/env python3
"""The evaluator at the reduced beam models' sizes, as one table: gpu_round.sh's `sizes` step
(gpu_evaluator_bench JSON) and its `torch` step (torch_baseline.py JSON lines) of the same run.

For each n: line-solves/s of every tier, the fraction of the FP64 floor, and frfit's default
tier against PyTorch's whole cost (line-solves/s, so batches of different problem counts compare).
The floor counts the algorithm's real flops per line (docs/gpu-backend.md, "The floor"):
(n^3/3 + 3 n^2) * 8 for the elimination and back-substitution, plus about 1 k + 80 n for the
assembly, projection, logs and arctangents, at 17 TFLOP/s (an H100's or H200's FP64 rate with no
fused multiply-add, which -fmad=false rules out).

    python3 benchmarks/gpu_sizes_table.py SIZES.json [TORCH.jsonl]
"""
import json
import re
import sys

FP64_NO_FMA = 17e12


def flops_per_line(n):
    return (n ** 3 / 3 + 3 * n ** 2) * 8 + 1000 + 80 * n


def main():
    bench = json.load(open(sys.argv[1]))
    torch = {}
    if len(sys.argv) > 2:
        for line in open(sys.argv[2]):
            if line.strip():
                row = json.loads(line)
                torch[row["n"]] = row
    tiers = {0: "cpu (2 threads)", 1: "cuda", 2: "cuda batched"}
    rows = []
    for b in bench["benchmarks"]:
        if b.get("run_type") == "aggregate" or "error_occurred" in b:
            continue
        args = dict(re.findall(r"(\w+):(\d+)", b["name"]))
        n, tier, lanes = int(args["n"]), int(args["tier"]), int(args["lanes"])
        name = tiers[tier] + (f", {lanes} lanes" if tier == 1 and lanes else
                              ", lanes by size" if tier == 1 else "")
        rate = b["items_per_second"]
        ms = b["real_time"] if b["time_unit"] == "ms" else b["real_time"] / 1e6
        rows.append((n, int(args["problems"]), name, ms, rate))
    print("| n | problems | tier | ms per call | line-solves/s | FP64 floor fraction | vs torch whole cost |")
    print("|---:|---:|---|---:|---:|---:|---:|")
    for n, problems, name, ms, rate in sorted(rows):
        floor = rate * flops_per_line(n) / FP64_NO_FMA
        t = torch.get(n)
        ratio = f"{rate / t['cost_line_solves_per_s']:.2f}x" if t and "cpu" not in name else ""
        print(f"| {n} | {problems} | {name} | {ms:.1f} | {rate / 1e6:.2f} M | {100 * floor:.1f} % | {ratio} |")
    for n, t in sorted(torch.items()):
        print(f"| {n} | {t['problems']} | torch whole cost | {1e3 * t['cost_seconds']:.1f} | "
              f"{t['cost_line_solves_per_s'] / 1e6:.2f} M | "
              f"{100 * t['cost_line_solves_per_s'] * flops_per_line(n) / FP64_NO_FMA:.1f} % | |")
        print(f"| {n} | {t['problems']} | torch linalg.solve alone | {1e3 * t['solve_seconds']:.1f} | "
              f"{t['solve_line_solves_per_s'] / 1e6:.2f} M | | |")


if __name__ == "__main__":
    main()
