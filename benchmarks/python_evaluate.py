#!/usr/bin/env python3
"""The Python module's evaluate() against the C++ benchmark of the same evaluator, in one run.

The batch is one GA generation of the KUKA KR90 fit: 80 individuals × 150 lines at n = 9 (the
milling posture, datasets/kuka_kr90/fit.yaml), which is `cpu/kuka_kr90/default/threads:T` of
benchmarks/cpu_evaluator_bench.cc. frfit.evaluate(problem, population) gets the population as one
NumPy array and makes one Evaluate call of the whole batch, as the C++ row does; what it adds is
the call from Python, the result array, and the joint coefficients of each individual, which the
C++ row computes once before it times: from the free parameters' values (space "physical"), or
through the fit's map from u ∈ [0, 1] (space "u": one std::pow per parameter and individual,
about 3 µs per individual of 18 parameters, the same work a fit's driver does).

The two alternate, `--rounds` times each. Load from other processes on a shared machine only ever
slows a round down, so each side's best round is its figure; the median of the ratios of
neighbouring rounds (one C++, one Python, a second apart) is printed beside it. One table row per
thread count; the ratio is Python / C++ of line-solves per second (1.00 = no overhead).

    PYTHONPATH=build/python python3 benchmarks/python_evaluate.py build [--threads 1,2] [--rounds 5]
        [--space physical|u]
"""
import argparse
import json
import pathlib
import subprocess
import sys
import time

import numpy as np

import frfit

REPO = pathlib.Path(__file__).resolve().parents[1]
INDIVIDUALS = 80


def cpp_rate(bench, threads, min_time):
    name = f"cpu/kuka_kr90/default/threads:{threads}/real_time"
    done = subprocess.run([str(bench), f"--benchmark_filter=^{name}$", "--benchmark_format=json",
                           f"--benchmark_min_time={min_time}"],
                          capture_output=True, text=True, check=True)
    rows = [b for b in json.loads(done.stdout)["benchmarks"] if b["name"] == name]
    if not rows:
        raise SystemExit(f"{bench} has no row {name}")
    return rows[0]["line_solves_per_s"]


def python_rate(problem, population, threads, min_time, space):
    lines = population.shape[0] * problem.lines
    frfit.evaluate(problem, population, threads=threads, space=space)  # the evaluator is made once
    calls, start = 0, time.perf_counter()
    while True:
        frfit.evaluate(problem, population, threads=threads, space=space)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return calls * lines / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", nargs="?", default=str(REPO / "build"))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=1.0, help="seconds per round and side")
    parser.add_argument("--space", default="physical", choices=["physical", "u"])
    args = parser.parse_args()
    bench = pathlib.Path(args.build) / "benchmarks" / "cpu_evaluator_bench"
    d = REPO / "datasets" / "kuka_kr90"
    problem = frfit.Problem(frfit.Model(d / "model.yaml"), [d / "frf_milling_inertance.h5"], d / "fit.yaml")
    assert problem.n == 9 and problem.lines == 150
    population = np.random.default_rng(7).uniform(size=(INDIVIDUALS, problem.dim))
    if args.space == "physical":
        population = np.array([problem.to_physical(u) for u in population])
    print(f"batch: {INDIVIDUALS} individuals x {problem.lines} lines, n = {problem.n}, "
          f"{problem.dim} free parameters, space {args.space}; {args.rounds} rounds of {args.min_time} s each")
    print("| threads | C++ benchmark, line-solves/s | Python evaluate(), line-solves/s "
          "| Python / C++, best rounds | Python / C++, median of neighbouring rounds |")
    print("|---:|---:|---:|---:|---:|")
    for threads in map(int, args.threads.split(",")):
        cpp, py = [], []
        for _ in range(args.rounds):
            cpp.append(cpp_rate(bench, threads, args.min_time))
            py.append(python_rate(problem, population, threads, args.min_time, args.space))
        pairs = float(np.median(np.array(py) / np.array(cpp)))
        print(f"| {threads} | {max(cpp) / 1e6:.3f} M | {max(py) / 1e6:.3f} M "
              f"| {max(py) / max(cpp):.3f} | {pairs:.3f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
