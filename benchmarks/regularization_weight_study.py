#!/usr/bin/env python3
"""Does `regularization: {weight: auto}` pick the weight that minimises the error against the truth?

KUKA model, milling posture only, tool tip only (inertance over 2-30 Hz at 0.25 Hz), impact-test
noise (3 % relative with a floor at 0.1 % of each entry's peak, the noise model in the file): the
issue's thin-data case. For each of N parameter sets none of which was used to build the method
(every stiffness and damping of datasets/kuka_kr90/params_from34.yaml times a factor drawn from
[0.75, 1.3], seeded), a nominal off from the truth by a factor drawn from [0.85, 1.15] per
parameter, the search's initial values and the regularisation's centre. Each set is fitted
  - with `weight: auto` (by default chosen by the evidence, docs/decisions.md), and
  - with every weight of a log grid (4 per decade) given as a number,
and each fit's truth error is the root mean square of (fitted - true) / nominal over the 18 free
parameters (the scaled parameters the weight acts on); the stiffnesses' own error is reported too.
The weight that minimises the truth error on the grid is compared with the automatic one.

  python3 benchmarks/regularization_weight_study.py [--sets 10] [--build build] [--json out.json]
  python3 benchmarks/regularization_weight_study.py --auto-only [--sets 10] [--build build]

Slow (one fit per grid weight per set): minutes per set on two cores. Needs numpy.
--auto-only fits each set with `weight: auto` under both rules (`choose_by: evidence` and `gcv`)
and no grid: the grid's best weight does not depend on the rule, and for seeds 701-710 it is
taken from benchmarks/RESULTS.md ("Regularisation weight", the first table; BEST_GRID below).
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "datasets", "kuka_kr90")
NAMES = [f"{kind}_{axis}{joint}" for kind in "kd" for joint in "123" for axis in "zxy"]
STIFFNESS = [n for n in NAMES if n.startswith("k_")]
GRID = [10 ** (k / 4) for k in range(-4, 17)]  # 0.1 ... 1e4
# The grid weight of least truth error per seed, from the full study of 2026-11-28 (RESULTS.md).
BEST_GRID = {701: 1000, 702: 100, 703: 5.6, 704: 56, 705: 316, 706: 32, 707: 100, 708: 32,
             709: 316, 710: 18}


def run(frfit, *args):
    return subprocess.run([frfit, *args], check=True, capture_output=True, text=True).stdout


def read_params(path):
    values = {}
    for line in open(path):
        parts = line.split(":")
        if len(parts) == 2 and parts[0].strip() in NAMES:
            values[parts[0].strip()] = float(parts[1])
    return values


def config_text(nominal, weight, choose_by=None):
    # The nominal is each parameter's initial value; its bounds a factor 5 either side.
    text = open(os.path.join(DATA, "fit.yaml")).read().replace("parameters:\n  initial: model\n",
                            "parameters:\n  initial: model\n  bounds:\n" +
                            "".join(f"    {n}: {{min: {v / 5:.6g}, max: {v * 5:.6g}, initial: {v:.6g}}}\n"
                                    for n, v in nominal.items()))
    if weight is not None:
        rule = f", choose_by: {choose_by}" if choose_by else ""
        text += f"regularization: {{toward: nominal, weight: {weight}{rule}}}\n"
    return text


def l_curve_corner(curve):
    """The weight of largest curvature of (log residual norm, log regularisation norm), for comparison."""
    w = np.log10([p["weight"] for p in curve])
    x = np.log10([p["residual_norm"] for p in curve])
    y = np.log10([max(p["regularization_norm"], 1e-300) for p in curve])
    dx, dy = np.gradient(x, w), np.gradient(y, w)
    ddx, ddy = np.gradient(dx, w), np.gradient(dy, w)
    kappa = (dx * ddy - ddx * dy) / np.maximum((dx * dx + dy * dy) ** 1.5, 1e-300)
    return float(10 ** w[int(np.argmax(kappa))])


def truth_error(fitted, truth, nominal, names):
    return float(np.sqrt(np.mean([((fitted[n] - truth[n]) / nominal[n]) ** 2 for n in names])))


def fit(frfit, tmp, frf, nominal, weight, choose_by=None):
    path = os.path.join(tmp, "fit.yaml")
    with open(path, "w") as f:
        f.write(config_text(nominal, weight, choose_by))
    out = json.loads(run(frfit, "fit", "--model", os.path.join(DATA, "model.yaml"), "--frf", frf,
                         "--config", path, "--seed", "1", "--json"))
    return out


def auto_only_row(frfit, tmp, frf, seed, truth, nominal):
    """One set's automatic fits under both rules, against the grid's best weight where known."""
    best = BEST_GRID.get(seed)
    row = {"seed": seed, "best_weight": best}
    line = f"set {seed}:"
    for rule in ("evidence", "gcv"):
        r = fit(frfit, tmp, frf, nominal, "auto", rule)
        reg = r["regularization"]
        assert reg["method"] == rule, reg["method"]
        weight = reg["weight"]
        row[rule] = {"weight": weight, "fits": reg["fits"], "ratio": weight / best if best else None,
                     "error": truth_error(r["parameters"], truth, nominal, NAMES),
                     "k_error": truth_error(r["parameters"], truth, nominal, STIFFNESS)}
        e = row[rule]
        ratio = f" (x{e['ratio']:.2f} of best {best:g})" if best else ""
        line += (f" {rule} {weight:.3g} ({e['fits']} fits){ratio} error {e['error']:.4f}"
                 f" stiffness {e['k_error']:.4f};")
    print(line, flush=True)
    return row


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=701)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--json", default="")
    parser.add_argument("--auto-only", action="store_true",
                        help="only the automatic fits, by evidence and by gcv (no grid)")
    a = parser.parse_args()
    frfit = os.path.join(a.build, "frfit")
    base = read_params(os.path.join(DATA, "params_from34.yaml"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in range(a.sets):
            seed = a.first_seed + s
            rng = np.random.default_rng(seed)
            truth = {n: base[n] * rng.uniform(0.75, 1.3) for n in NAMES}
            nominal = {n: truth[n] * rng.uniform(0.85, 1.15) for n in NAMES}
            params = os.path.join(tmp, "truth.yaml")
            with open(params, "w") as f:
                f.write("parameters:\n" + "".join(f"  {n}: {v:.9g}\n" for n, v in truth.items()))
            frf = os.path.join(tmp, "noisy.h5")
            run(frfit, "simulate", "--model", os.path.join(DATA, "model.yaml"), "--posture", "milling",
                "--params", params, "--band", "2:30:0.25", "--noise", "0.03:0.001", "--seed", str(seed),
                "--out", frf)
            if a.auto_only:
                rows.append(auto_only_row(frfit, tmp, frf, seed, truth, nominal))
                continue
            auto = fit(frfit, tmp, frf, nominal, "auto")
            auto_weight = auto["regularization"]["weight"]
            corner = l_curve_corner(auto["regularization"]["curve"])
            errors, k_errors = [], []
            for w in GRID:
                r = fit(frfit, tmp, frf, nominal, w)
                errors.append(truth_error(r["parameters"], truth, nominal, NAMES))
                k_errors.append(truth_error(r["parameters"], truth, nominal, STIFFNESS))
            plain = fit(frfit, tmp, frf, nominal, None)
            best = GRID[int(np.argmin(errors))]
            k_best = GRID[int(np.argmin(k_errors))]
            row = {
                "seed": seed, "auto_weight": auto_weight, "fits": auto["regularization"]["fits"],
                "best_weight": best, "ratio": auto_weight / best,
                "best_weight_stiffness": k_best, "ratio_stiffness": auto_weight / k_best,
                "error_auto": truth_error(auto["parameters"], truth, nominal, NAMES),
                "error_best": min(errors),
                "error_none": truth_error(plain["parameters"], truth, nominal, NAMES),
                "error_nominal": truth_error(nominal, truth, nominal, NAMES),
                "k_error_auto": truth_error(auto["parameters"], truth, nominal, STIFFNESS),
                "k_error_best": min(k_errors),
                "k_error_none": truth_error(plain["parameters"], truth, nominal, STIFFNESS),
                "l_curve_corner": corner, "auto_curve": auto["regularization"]["curve"],
                "grid_errors": errors, "grid_k_errors": k_errors,
            }
            rows.append(row)
            print(f"set {seed}: auto {auto_weight:.3g} ({row['fits']} fits), best {best:.3g} "
                  f"(x{row['ratio']:.2f}); L-curve corner {corner:.3g}; stiffness best {k_best:.3g} (x{row['ratio_stiffness']:.2f}); "
                  f"rms error auto {row['error_auto']:.4f} best {row['error_best']:.4f} "
                  f"none {row['error_none']:.4f} nominal {row['error_nominal']:.4f}; stiffness auto "
                  f"{row['k_error_auto']:.4f} best {row['k_error_best']:.4f} none {row['k_error_none']:.4f}",
                  flush=True)
    if a.auto_only:
        for rule in ("evidence", "gcv"):
            known = [r for r in rows if r["best_weight"]]
            within = sum(1 for r in known if 1 / 3 <= r[rule]["ratio"] <= 3)
            print(f"{rule}: within a factor 3 of the truth-error minimum in {within} of {len(known)}")
    else:
        within = sum(1 for r in rows if 1 / 3 <= r["ratio"] <= 3)
        print(f"auto within a factor 3 of the truth-error minimum: {within} of {len(rows)}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"grid": GRID, "sets": rows}, f, indent=1)


if __name__ == "__main__":
    main()
