#!/usr/bin/env python3
"""frfit against scipy.optimize.least_squares on measured-like data, the same problems in the same run.

The data are those of benchmarks/measured_data_study.py (its parameter draw around the KUKA
dataset's reference values, its noise: `frfit simulate --noise 0.03:0.001`, 2-30 Hz at 0.25 Hz,
three postures). On each trial:

  - frfit: `frfit fit --json` with the bundled datasets/kuka_kr90/fit.yaml (noise weights from the
    file's noise model, reweighted at the model), the whole command timed; and once more with the
    noise model left out of the files, so that frfit estimates it (`--no-noise-model` data);
  - SciPy: least_squares (trust-region reflective, bounds [0, 1] in frfit's normalised space, the
    analytic Jacobian in NumPy: benchmarks/lsq_problem.py) on the same log residuals frfit fits
    (the problem frfit prepared, written by build/benchmarks/export_problem), from each of the
    starting points frfit's refinement used, best kept, in two forms:
      * "oracle weights": each line and entry weighted by |H_true|^2 / sigma^2 with the TRUE FRF and
        the true noise variance — what the issue measured as SciPy's best (weights no measurement
        can have);
      * "cauchy, no noise model": unit weights and loss='cauchy', f_scale 0.05 (the log residual of
        3 % noise is 0.03; 0.02 and 0.1 did no better on three trials);
    only the least_squares calls timed. Both on one core: frfit --threads 1, NumPy/SciPy with one
    BLAS thread.

Reported per peer: the stiffnesses' error (median of each trial's median, worst over all), wall
seconds. frfit's own 1 sigma calibration is in measured_data_study.py.

  python3 benchmarks/noisy_vs_scipy.py [--trials 10] [--seed 11] [--build build]

Needs numpy, scipy and h5py (pip); not used by any test.
"""
import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse
import json
import random
import sys
import tempfile
import time

import h5py
import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsq_problem  # noqa: E402
import measured_data_study as study  # noqa: E402

ROOT = study.ROOT


def h_of(path):
    with h5py.File(path, "r") as f:
        h = f["H"][()]
        return h[..., 0] + 1j * h[..., 1], (f["noise_variance"][()] if "noise_variance" in f else None)


def to_u(problem, values):
    return np.array([(np.log(values[n] / lo) / np.log(hi / lo)) if log else (values[n] - lo) / (hi - lo)
                     for n, lo, hi, log in zip(problem.names, problem.lower, problem.upper, problem.log_scale)])


def scipy_best(problem, starts, **kwargs):
    best, t0 = None, time.perf_counter()
    for u0 in starts:
        r = least_squares(problem.residuals, np.clip(u0, 0, 1), jac=lambda u: problem.residuals(u, jacobian=True)[1],
                          bounds=(0.0, 1.0), method="trf", xtol=1e-12, ftol=1e-12, gtol=1e-12, **kwargs)
        best = r if best is None or r.cost < best.cost else best
    return best, time.perf_counter() - t0


def stiffness_errors(values, truth):
    return [abs(values[k] / v - 1) for k, v in truth.items() if k.startswith("k_")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    frfit = os.path.join(args.build, "frfit")
    export = os.path.join(args.build, "benchmarks", "export_problem")
    fam = study.FAMILIES["kuka"]
    model = os.path.join(ROOT, fam["dir"], "model.yaml")
    config = os.path.join(ROOT, fam["dir"], "fit.yaml")
    bounds = study.model_bounds(open(model).read())
    reference = study.read_params(os.path.join(ROOT, fam["dir"], fam["reference"]))
    rng = random.Random(args.seed)
    peers = ["frfit, noise model in the files", "frfit, noise model estimated",
             "scipy, oracle weights", "scipy, cauchy, no noise model"]
    errors = {p: [] for p in peers}
    seconds = {p: [] for p in peers}
    with tempfile.TemporaryDirectory() as work:
        uniform = os.path.join(work, "uniform.yaml")
        open(uniform, "w").write(open(config).read().replace("weights: {mode: noise}", "weights: {mode: uniform}"))
        for t in range(args.trials):
            truth = study.draw_truth(rng, bounds, reference, 2.0)
            params = study.write_params(truth, os.path.join(work, "truth.yaml"))
            noisy, unknown, clean = [], [], []
            for i, p in enumerate(fam["postures"]):
                base = [frfit, "simulate", "--model", model, "--posture", p, "--params", params,
                        "--band", "2:30:0.25", "--format", "inertance"]
                seed = str(1000 * args.seed + 10 * t + i)
                for files, extra in ((clean, []), (noisy, ["--noise", "0.03:0.001", "--seed", seed]),
                                     (unknown, ["--noise", "0.03:0.001", "--seed", seed, "--noise-model", "none"])):
                    out = os.path.join(work, f"{len(files)}_{p}_{len(extra)}.h5")
                    study.run(base + extra + ["--out", out])
                    study.strip_truth(out)
                    files.append(out)
            fits = {}
            for peer, files in ((peers[0], noisy), (peers[1], unknown)):
                t0 = time.perf_counter()
                fits[peer] = json.loads(study.run([frfit, "fit", "--model", model, "--frf", ",".join(files),
                                                   "--config", config, "--seed", "1", "--backend", "cpu", "--threads", "1",
                                                   "--json"]).stdout)
                seconds[peer].append(time.perf_counter() - t0)
                errors[peer].append(stiffness_errors(fits[peer]["parameters"], truth))
            path = os.path.join(work, "problem.h5")
            study.run([export, "--model", model, "--frf", ",".join(noisy), "--config", uniform, "--out", path])
            problem = lsq_problem.Problem(path)
            starts = [to_u(problem, s) for s in fits[peers[0]]["refinement"]["start_parameters"]]
            # Oracle weights: |H_true|^2 / sigma_true^2 on the exported lines (the file's lines, in order).
            for q, (c, n) in enumerate(zip(clean, noisy)):
                h_true, _ = h_of(c)
                _, variance = h_of(n)
                w = problem.postures[q]["weight"].reshape(-1, 9)
                oracle = (np.abs(h_true) ** 2 / variance).reshape(-1, 9)
                problem.postures[q]["weight"] = np.where(w > 0, oracle, 0.0).reshape(-1)
            res, s = scipy_best(problem, starts)
            errors[peers[2]].append(stiffness_errors(dict(zip(problem.names, problem.physical(res.x))), truth))
            seconds[peers[2]].append(s)
            for q in range(len(problem.postures)):
                w = problem.postures[q]["weight"]
                problem.postures[q]["weight"] = np.where(w > 0, 1.0, 0.0)
            res, s = scipy_best(problem, starts, loss="cauchy", f_scale=0.05)
            errors[peers[3]].append(stiffness_errors(dict(zip(problem.names, problem.physical(res.x))), truth))
            seconds[peers[3]].append(s)
            print(f"trial {t}: " + "; ".join(f"{p} median {100 * np.median(errors[p][-1]):.3f} % worst "
                                             f"{100 * max(errors[p][-1]):.2f} % {seconds[p][-1]:.2f} s"
                                             for p in peers), flush=True)
    print(f"\nKUKA, 3 postures, impact-test noise (3 % + 0.1 % of each entry's peak), {args.trials} parameter sets:")
    print("  peer                                stiffness error: median of medians / worst    wall s mean")
    for p in peers:
        print(f"  {p:35s} {100 * np.median([np.median(e) for e in errors[p]]):8.3f} % / {100 * max(max(e) for e in errors[p]):6.2f} %"
              f"          {np.mean(seconds[p]):6.2f}")


if __name__ == "__main__":
    main()
