#!/usr/bin/env python3
"""frfit's fit against scipy.optimize.least_squares on the same problems, in the same run.

For each trial a parameter set is drawn log-uniformly inside the model's bounds (5 % of the log
range away from them), FRFs are synthesised with `frfit simulate` (noise-free unless --noise),
and the same FRF files are fitted
  - by `frfit fit --json` with the dataset's bundled fit.yaml (least squares from 8 starts), and
  - by SciPy's least_squares (trust-region reflective, bounds [0, 1] in the same normalised space,
    the analytic Jacobian written in NumPy: benchmarks/lsq_problem.py) on the very residuals frfit
    fits (the problem frfit prepared, written by build/benchmarks/export_problem), from the
    model's initial values as a single least-squares start would be.
SciPy runs twice: from the model's initial values alone (one least-squares start, as a user of
least_squares would start it), and from each of the starting points frfit's refinement used
(reported in its --json), keeping the best — the same multi-start, run one start after another.
With --lean frfit also runs with the budget of one SciPy start (8 GA points, 2 starts, at most
2 cycles: lean_config), so that each SciPy row has its like-for-like frfit row.
A fit succeeds when every parameter is within 2 % of the truth. Evaluations: frfit's
`evaluations` (cost-only GA points plus normal-equation points, each of which includes the
Jacobian); SciPy's nfev + njev. Sequential calls: frfit's `rounds` (evaluator calls, each covering
all its points: what a batched backend's wall time follows); SciPy's are its evaluations. Wall time: frfit's whole command (process start to exit, parsing
and result assembly included) against SciPy's least_squares call alone.

Both run on one core: frfit with --threads 1, NumPy/SciPy with one BLAS thread (set below before
NumPy loads; multi-threaded OpenBLAS made SciPy's per-iteration SVD of the 2700 x 18 KUKA Jacobian
35x slower on a loaded two-core machine, which would be no fair peer).

Also, once per family, frfit's identifiability singular values at its solution are compared with
those of a central-difference Jacobian computed here in NumPy.

  python3 benchmarks/lsq_vs_scipy.py [--trials 20] [--seed 7] [--noise 0] [--build build]

Needs numpy, scipy and h5py (pip); not used by any test.
"""
import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse
import json
import math
import random
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsq_problem  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def model_bounds(model_text):
    """{parameter: (min, max)} of a viscous model with plain stiffness entries."""
    bounds = {}
    for m in re.finditer(r"name: (\w+), type: \w+, stiffness: \{initial: [^,]+, min: ([^,]+), max: ([^}]+)\}, "
                         r"damping: \{initial: [^,]+, min: ([^,]+), max: ([^}]+)\}", model_text):
        bounds["k_" + m.group(1)] = (float(m.group(2)), float(m.group(3)))
        bounds["d_" + m.group(1)] = (float(m.group(4)), float(m.group(5)))
    return bounds


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True)


def draw_truth(rng, bounds):
    """A parameter set drawn log-uniformly inside the bounds, 5 % of the log range away from them."""
    return {k: math.exp(rng.uniform(math.log(lo) + 0.05 * math.log(hi / lo),
                                    math.log(hi) - 0.05 * math.log(hi / lo)))
            for k, (lo, hi) in bounds.items()}


def write_params(truth, path):
    open(path, "w").write("parameters:\n" + "".join(f"  {k}: {v!r}\n" for k, v in truth.items()))
    return path


def simulate(frfit, model, posture, params, out):
    """Noise-free inertance FRFs of `params` at `posture`, 0.2-30 Hz, as the fits read them."""
    run([frfit, "simulate", "--model", model, "--posture", posture, "--params", params,
         "--band", "0.2:30:0.2", "--format", "inertance", "--out", out])
    return out


def families(work):
    """(name, model path, postures, fit config) of the problems compared."""
    kuka = os.path.join(ROOT, "datasets/kuka_kr90")
    # The 3-joint example has one posture; the two-posture case adds the law dataset's
    # `reach` configuration (z2 = 30°, z3 = −40°) to a copy of its model.
    text = open(os.path.join(ROOT, "datasets/paper_3dof/model.yaml")).read()
    text = text.replace("  milling: {z1: 0, z2: 70, z3: -100}   # degrees",
                        "  milling: {z1: 0, z2: 70, z3: -100}   # degrees\n  reach: {z1: 0, z2: 30, z3: -40}")
    p3 = os.path.join(work, "paper_3dof_two_postures.yaml")
    open(p3, "w").write(text)
    return [("kuka_kr90, 1 posture", os.path.join(kuka, "model.yaml"), ["milling"], os.path.join(kuka, "fit.yaml")),
            ("3-joint, 2 postures", p3, ["milling", "reach"], os.path.join(ROOT, "datasets/paper_3dof/fit.yaml"))]


def to_u(problem, values):
    """The normalised point of physical values (dict by name), as frfit's parameter map."""
    return np.array([(math.log(values[n] / lo) / math.log(hi / lo)) if log else (values[n] - lo) / (hi - lo)
                     for n, lo, hi, log in zip(problem.names, problem.lower, problem.upper, problem.log_scale)])


def lean_config(config, work):
    """The family's fit config cut to the budget of one SciPy start: 8 GA points, 2 starts in
    lock-step, at most 2 cycles (the bundled configs spend more to find every truth)."""
    text = open(config).read()
    text = re.sub(r"population_size: \d+", "population_size: 8", text)
    text = re.sub(r"max_cycles: \d+", "max_cycles: 2", text)
    path = os.path.join(work, "lean_" + os.path.basename(os.path.dirname(config)) + ".yaml")
    open(path, "w").write(text + "levenberg_marquardt: {starts: 2}\n")
    return path


def frfit_fit(frfit, model, frf, config, truth):
    """(success, evaluations, wall seconds of the whole command, evaluator calls), and the fit."""
    t0 = time.perf_counter()
    out = run([frfit, "fit", "--model", model, "--frf", frf, "--config", config, "--seed", "1",
               "--backend", "cpu", "--threads", "1", "--json"]).stdout
    seconds = time.perf_counter() - t0
    fit = json.loads(out)
    ok = all(abs(fit["parameters"][k] / v - 1) < 0.02 for k, v in truth.items())
    return (ok, fit["evaluations"], seconds, fit["rounds"]), fit


def scipy_fit(problem, u0):
    res = least_squares(problem.residuals, u0, jac=lambda u: problem.residuals(u, jacobian=True)[1],
                        bounds=(0.0, 1.0), method="trf", xtol=1e-12, ftol=1e-12, gtol=1e-12)
    return res, res.nfev + (res.njev or 0)


def numpy_singular_values(problem, u, h=1e-6):
    """Singular values of W^½ J over relative parameter changes, J by central differences."""
    theta = problem.physical(u)
    slope = problem.slope(u)
    cols = []
    for j in range(problem.dim):
        e = np.zeros(problem.dim)
        e[j] = h
        d = (problem.residuals(u + e) - problem.residuals(u - e)) / (2 * h)
        cols.append(d * np.abs(theta[j]) / slope[j])
    return np.linalg.svd(np.stack(cols, axis=1), compute_uv=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--noise", type=float, default=0.0, help="relative complex noise added to the FRFs")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--lean", action="store_true",
                    help="also run frfit with the budget of one SciPy start (lean_config)")
    args = ap.parse_args()
    frfit = os.path.join(args.build, "frfit")
    export = os.path.join(args.build, "benchmarks", "export_problem")
    rng = random.Random(args.seed)
    noise_rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as work:
        for family, model, postures, config in families(work):
            bounds = model_bounds(open(model).read())
            rows = {"frfit": [], **({"frfit, lean": []} if args.lean else {}), "scipy, 1 start": [],
                    "scipy, frfit's starts": []}
            checked = False
            for t in range(args.trials):
                truth = draw_truth(rng, bounds)
                params = write_params(truth, os.path.join(work, "truth.yaml"))
                files = []
                for posture in postures:
                    f = simulate(frfit, model, posture, params, os.path.join(work, f"frf_{posture}.h5"))
                    if args.noise > 0:
                        import h5py
                        with h5py.File(f, "r+") as h5:
                            H = h5["H"][()]
                            z = (noise_rng.standard_normal(H.shape[:-1]) + 1j * noise_rng.standard_normal(H.shape[:-1]))
                            h = (H[..., 0] + 1j * H[..., 1]) * (1 + args.noise * z / math.sqrt(2))
                            H[..., 0], H[..., 1] = h.real, h.imag
                            h5["H"][...] = H
                    files.append(f)
                frf = ",".join(files)
                row, fit = frfit_fit(frfit, model, frf, config, truth)
                rows["frfit"].append(row)
                if args.lean:
                    rows["frfit, lean"].append(frfit_fit(frfit, model, frf, lean_config(config, work), truth)[0])

                path = os.path.join(work, "problem.h5")
                run([export, "--model", model, "--frf", frf, "--config", config, "--out", path])
                problem = lsq_problem.Problem(path)
                success = lambda res: all(abs(dict(zip(problem.names, problem.physical(res.x)))[k] / truth[k] - 1) < 0.02
                                          for k in problem.names)
                t0 = time.perf_counter()
                res, evaluations = scipy_fit(problem, problem.initial_u)
                rows["scipy, 1 start"].append((success(res), evaluations, time.perf_counter() - t0, evaluations))
                t0 = time.perf_counter()
                best, total = None, 0
                for start in fit["refinement"].get("start_parameters", []):
                    r, evaluations = scipy_fit(problem, np.clip(to_u(problem, start), 0.0, 1.0))
                    total += evaluations
                    best = r if best is None or r.cost < best.cost else best
                rows["scipy, frfit's starts"].append((best is not None and success(best), total,
                                                      time.perf_counter() - t0, total))
                print(f"{family} trial {t}: " + "; ".join(
                    f"{peer} {'ok' if r[-1][0] else 'MISS'} {r[-1][1]} evaluations {r[-1][2]:.2f} s"
                    for peer, r in rows.items()), flush=True)
                if not checked and rows["frfit"][-1][0]:
                    mine = numpy_singular_values(problem, to_u(problem, fit["parameters"]))
                    theirs = np.array(fit["identifiability"]["singular_values"], dtype=float)
                    keep = mine > 1e-6 * mine[0]
                    worst = np.max(np.abs(theirs[keep] - mine[keep]) / mine[keep])
                    print(f"{family}: identifiability singular values, frfit against NumPy central "
                          f"differences: largest relative difference {worst:.1e} over {keep.sum()} values "
                          f"(condition number {fit['identifiability']['condition_number']:.3g})", flush=True)
                    checked = True
            print(f"\n{family}, {args.trials} random parameter sets, noise {args.noise}:")
            print("  peer                     success   evaluations mean / median / max   sequential calls mean"
                  "   wall s mean / max")
            for peer, r in rows.items():
                ev = [x[1] for x in r]
                wall = [x[2] for x in r]
                calls = [x[3] for x in r]
                print(f"  {peer:23s}  {sum(x[0] for x in r):2d}/{len(r):<3d}   {np.mean(ev):8.0f} / {np.median(ev):6.0f} / "
                      f"{max(ev):6d}   {np.mean(calls):12.0f}            {np.mean(wall):6.2f} / {max(wall):6.2f}")
            print(flush=True)


if __name__ == "__main__":
    main()
