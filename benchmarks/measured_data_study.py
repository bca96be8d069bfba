#!/usr/bin/env python3
"""frfit on data like a measurement: impact-test noise and physics the model lacks.

For each trial a parameter set nobody tuned for is drawn log-uniformly inside the model's bounds
(5 % of the log range away from them, seeded), its inertance FRFs are synthesised with
`frfit simulate` on 2-30 Hz at 0.25 Hz, and noise is added as an impact test shows it:

    H_meas = H (1 + a e1) + b max_l |H_ij| e2,   e ~ CN(0, 1) per line and entry

(a = 0.03 relative, b = 0.001 of each entry's peak: the weak cross entries and the low lines sit
under the floor). The files carry that noise model (`noise_variance`) unless --no-noise-model, in
which case frfit estimates it from the data. Model-error cases synthesise the truth with a model
file that has physics the fitted model lacks (written here; see MODEL_ERRORS) and fit it with the
bundled model.

Per fit it reports: stiffness error (median, worst), modes at a posture not fitted (frequency
error, damping error), the share of estimates within 2 sigma and the median |error/sigma|,
parameters at a bound, and the model check's verdict, reduced chi2 and unexplained modes.

  python3 benchmarks/measured_data_study.py [--family kuka|kuka_tool|3dof|delta] [--case noise|clean|base|mode|...]
      [--trials 5] [--seed 11] [--postures 3] [--config PATH] [--no-noise-model] [--build build]
      [--points joint3,joint2]

--points adds, at every posture, a triaxial response at the origin of each named frame with the
hammer at the tool tip (multi-point sets, frfit simulate --response-frame), each with its own noise.
--static P1,P2,... adds static deflection tests (frfit fit --static): at each posture a force of
--static-force N along x, y and z of the tool tip, the tool tip's displacement from the truth's
static compliance (frfit simulate at 0 Hz in receptance) plus N(0, --static-std m) per component.

Needs numpy and h5py (pip); not used by any test.
"""
import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from make_static_tests import write_static_tests  # noqa: E402  (tools/, beside this script's repo)

FAMILIES = {
    "kuka": {"dir": "datasets/kuka_kr90", "postures": ["milling", "reach", "folded"],
             "check": ("milling", "z2=55,z3=-75"), "reference": "params_from34.yaml"},
    # The KUKA carrying a tool whose catalogue mass (60 kg, the fit's initial value) is wrong: the
    # truth's tool weighs 78 kg, fitted as m_tool beside the 18 joint parameters.
    "kuka_tool": {"dir": "datasets/kuka_kr90", "model": "model_tool.yaml",
                  "postures": ["milling", "reach", "folded"], "check": ("milling", "z2=55,z3=-75"),
                  "reference": "params_from34.yaml", "fixed_truth": {"m_tool": 78.0}},
    "3dof": {"dir": "datasets/paper_3dof", "postures": ["milling"],
             "check": ("milling", "z2=50,z3=-70"), "reference": "params_table1.yaml"},
    # The Delta (a closed chain): its platform FRFs at C1 and C2 over its dataset's band. Its
    # postures place the platform, so the modes are checked at C2 itself (no coordinate to move).
    "delta": {"dir": "datasets/delta", "postures": ["C1", "C2"], "check": ("C2", None),
              "fitted_q": None, "reference": "params_truth.yaml", "band": "2:40:0.05", "f_max": 40.5},
}


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + r.stderr)
    return r


def model_bounds(model_text):
    bounds = {}
    for m in re.finditer(r"name: (\w+), type: \w+, stiffness: \{initial: [^,]+, min: ([^,]+), max: ([^}]+)\},\s*"
                         r"damping: \{initial: [^,]+, min: ([^,]+), max: ([^}]+)\}", model_text):
        bounds["k_" + m.group(1)] = (float(m.group(2)), float(m.group(3)))
        bounds["d_" + m.group(1)] = (float(m.group(4)), float(m.group(5)))
    return bounds


def draw_truth(rng, bounds, reference, factor):
    """Each parameter log-uniformly within [reference / factor, reference * factor] (a robot of the
    same type: the dataset's reference values), kept 5 % of the log range inside the bounds; with
    no reference, log-uniformly over the bounds."""
    out = {}
    for k, (lo, hi) in bounds.items():
        a, b = math.log(lo) + 0.05 * math.log(hi / lo), math.log(hi) - 0.05 * math.log(hi / lo)
        if reference:
            c = math.log(reference[k])
            a, b = max(a, c - math.log(factor)), min(b, c + math.log(factor))
        out[k] = math.exp(rng.uniform(a, b))
    return out


def read_params(path):
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"^\s+(\w+):\s*([-+0-9.eE]+)\s*(#.*)?$", open(path).read(), re.M)}


def write_params(values, path):
    open(path, "w").write("parameters:\n" + "".join(f"  {k}: {v!r}\n" for k, v in values.items()))
    return path


# Physics the fitted model lacks, as (name, model-text edit, extra parameters).
def base_flexibility(text):
    """Tilt DOFs bx, by under joint 1: a flexible base (foundation, anchor bolts)."""
    text = text.replace("dofs:\n", "dofs:\n"
                        "  - {name: bx, type: rotational, stiffness: {initial: 2.0e8, min: 1.0e6, max: 1.0e10}, damping: {initial: 2.0e4, min: 1, max: 1.0e7}}\n"
                        "  - {name: by, type: rotational, stiffness: {initial: 2.0e8, min: 1.0e6, max: 1.0e10}, damping: {initial: 2.0e4, min: 1, max: 1.0e7}}\n", 1)
    text = text.replace("frames:\n", "frames:\n  - {name: base, parent: ground, transforms: [{rotx: bx}, {roty: by}]}\n", 1)
    text = text.replace("parent: ground, transforms: [{rotz: z1}", "parent: base, transforms: [{rotz: z1}")
    text = text.replace("bodies:\n", "bodies:\n  - {name: pedestal, frame: base, mass: 1500, com: [0, 0, 0.5], "
                        "inertia: {xx: 400, yy: 400, zz: 300, xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n", 1)
    return text


def local_mode(text):
    """A 15 kg mass on a spring at the tool, along its x axis (a tool holder or fixture mode)."""
    text = text.replace("dofs:\n", "dofs:\n"
                        "  - {name: ax, type: translational, stiffness: {initial: 4.0e5, min: 1.0e3, max: 1.0e9}, damping: {initial: 100, min: 1, max: 1.0e6}}\n", 1)
    text = re.sub(r"(  - \{name: sensor, parent: joint3.*\n)",
                  r"\1  - {name: absorber, parent: sensor, transforms: [{transx: ax}]}\n", text)
    text = text.replace("bodies:\n", "bodies:\n  - {name: absorber_mass, frame: absorber, mass: 15, com: [0, 0, 0], "
                        "inertia: {xx: 0.05, yy: 0.05, zz: 0.05, xy: 0, xz: 0, yz: 0, off_diagonal: tensor_entries}}\n", 1)
    return text


MODEL_ERRORS = {
    # Base tilt stiffnesses that put the two base modes at about 37-42 Hz, just above the band
    # (`frfit modal` on the written model), 3 % damped.
    "base": (base_flexibility, {"k_bx": 4.2e7, "k_by": 5.0e7, "d_bx": 1.0e4, "d_by": 1.2e4}),
    # 15 kg at about 26 Hz on its own (k = m (2 pi f)^2), 2 % damped (d = 2 zeta sqrt(k m)).
    "mode": (local_mode, {"k_ax": 15 * (2 * math.pi * 26.0) ** 2,
                          "d_ax": 2 * 0.02 * math.sqrt(15 * 15 * (2 * math.pi * 26.0) ** 2)}),
}


def strip_truth(path):
    """A measurement does not know the parameters behind it: drop them from the provenance."""
    with h5py.File(path, "r+") as f:
        if "provenance" in f and "parameters" in f["provenance"].attrs:
            del f["provenance"].attrs["parameters"]


def modes(frfit, model, posture, q, params, f_max=30.5):
    """The modes below f_max at `posture`, its coordinates moved by `q` (None: as it is)."""
    out = run([frfit, "modal", "--model", model, "--posture", posture, "--params", params, "--json"]
              + (["--q", q] if q else [])).stdout
    return [(m["frequency_hz"], m["damping_ratio"]) for m in json.loads(out)["modes"] if m["frequency_hz"] < f_max]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--family", default="kuka", choices=FAMILIES)
    ap.add_argument("--case", default="noise", help="clean | noise | base | base+noise | mode | mode+noise")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--draw", default="reference", choices=["reference", "bounds"],
                    help="truths around the dataset's reference parameters (x/÷ --factor) or over the bounds")
    ap.add_argument("--factor", type=float, default=2.0)
    ap.add_argument("--postures", type=int, default=0, help="how many of the family's postures (0: all)")
    ap.add_argument("--config", default="")
    ap.add_argument("--no-noise-model", action="store_true")
    ap.add_argument("--relative", type=float, default=0.03)
    ap.add_argument("--floor", type=float, default=0.001)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--keep", default="", help="keep the files in this directory")
    ap.add_argument("--json", action="store_true", help="one JSON line per trial")
    ap.add_argument("--points", default="", help="response frames besides the tool tip, comma-separated")
    ap.add_argument("--static", default="", help="postures of static deflection tests, comma-separated")
    ap.add_argument("--static-force", type=float, default=1000.0)
    ap.add_argument("--static-std", type=float, default=1e-6)
    args = ap.parse_args()
    frfit = os.path.join(args.build, "frfit")
    fam = FAMILIES[args.family]
    model = os.path.join(ROOT, fam["dir"], fam.get("model", "model.yaml"))
    config = args.config or os.path.join(ROOT, fam["dir"], "fit.yaml")
    postures = fam["postures"][: args.postures or None]
    text = open(model).read()
    bounds = model_bounds(text)
    rng = random.Random(args.seed)
    reference = read_params(os.path.join(ROOT, fam["dir"], fam["reference"])) if args.draw == "reference" else None
    case = args.case.split("+")
    noisy = "noise" in case
    error = next((c for c in case if c in MODEL_ERRORS), None)
    work = args.keep or tempfile.mkdtemp(prefix="frfit_study_")
    os.makedirs(work, exist_ok=True)
    truth_model = model
    if error:
        edit, extra = MODEL_ERRORS[error]
        truth_model = os.path.join(work, f"truth_{error}.yaml")
        open(truth_model, "w").write(edit(text))
    rows = []
    for t in range(args.trials):
        truth = {**draw_truth(rng, bounds, reference, args.factor), **fam.get("fixed_truth", {})}
        params = write_params(truth, os.path.join(work, f"truth{t}.yaml"))
        sim_params = write_params({**truth, **extra}, os.path.join(work, f"sim{t}.yaml")) if error else params
        files = []
        frames = [""] + [f for f in args.points.split(",") if f]
        for p, frame in [(p, f) for p in postures for f in frames]:
            out = os.path.join(work, f"t{t}_{p}{'_' + frame if frame else ''}.h5")
            cmd = [frfit, "simulate", "--model", truth_model, "--posture", p, "--params", sim_params,
                   "--band", fam.get("band", "2:30:0.25"), "--format", "inertance", "--out", out]
            if frame:
                cmd += ["--response-frame", frame]
            if noisy:
                cmd += ["--noise", f"{args.relative}:{args.floor}", "--seed", str(1000 * args.seed + 10 * t + len(files)),
                        "--noise-model", "none" if args.no_noise_model else "variance"]
            run(cmd)
            strip_truth(out)
            files.append(out)
        result = os.path.join(work, f"fit{t}.h5")
        static = []
        if args.static:
            static = ["--static", write_static_tests(frfit, truth_model, sim_params, args.static.split(","),
                                                     args.static_force, args.static_std, 1000 * args.seed + t,
                                                     os.path.join(work, f"static{t}.yaml"))]
        fit = json.loads(run([frfit, "fit", "--model", model, "--frf", ",".join(files), "--config", config,
                              "--seed", "1", "--json", "--out", result] + static).stdout)
        par = fit["parameters"]
        ident = fit["identifiability"]["parameters"]
        kerr = [abs(par[k] / v - 1) for k, v in truth.items() if k.startswith("k_")]
        z = [(par[k] - v) / ident[k]["std_absolute"] for k, v in truth.items() if ident[k]["std_absolute"] > 0]
        # modes at the posture not fitted: truth model (with its extra physics) vs fitted model
        cp, cq = fam["check"]
        f_max = fam.get("f_max", 30.5)
        true_modes = modes(frfit, truth_model, cp, cq, sim_params, f_max)
        fit_modes = modes(frfit, model, cp, cq, result, f_max)
        ferr, derr = [], []
        for f, d in true_modes:
            g = min(fit_modes, key=lambda m: abs(m[0] - f))
            ferr.append(abs(g[0] / f - 1))
            derr.append(abs(g[1] / d - 1))
        # and at the first fitted posture
        fitted_err = []
        fitted_q = fam.get("fitted_q", "z1=0")
        true_here = modes(frfit, truth_model, postures[0], fitted_q, sim_params, f_max)
        fit_here = modes(frfit, model, postures[0], fitted_q, result, f_max)
        for f, _ in true_here:
            fitted_err.append(min(abs(g / f - 1) for g, _ in fit_here))
        check = fit.get("model_check", {})
        # For a mode the model lacks: the truth has one mode more in the band than the fitted model
        # at each posture. Paired one to one by frequency (SciPy's assignment), the truth modes left
        # over are the extra ones (with a local mode coupled to a robot mode, either of the two can
        # be); the check's named frequency is compared with the nearest of them.
        extra_err = []
        if error == "mode":
            from scipy.optimize import linear_sum_assignment
            for m in check.get("unexplained_modes", []):
                truth_here = [f for f, _ in modes(frfit, truth_model, m["posture"], "z1=0", sim_params)]
                fitted_here = [f for f, _ in modes(frfit, model, m["posture"], "z1=0", result)]
                cost = np.array([[abs(g / f - 1) for g in fitted_here] for f in truth_here])
                paired, _ = linear_sum_assignment(cost)
                left = [f for i, f in enumerate(truth_here) if i not in set(paired)] or truth_here
                extra_err.append(min(abs(m["frequency_hz"] / f - 1) for f in left))
        row = {"trial": t, "k_err_median": float(np.median(kerr)), "k_err_worst": max(kerr),
               "f_err_median": float(np.median(ferr)), "f_err_worst": max(ferr),
               "zeta_err_median": float(np.median(derr)),
               "f_err_fitted_worst": max(fitted_err),
               "within_2sigma": float(np.mean([abs(v) < 2 for v in z])) if z else float("nan"),
               "median_abs_z": float(np.median(np.abs(z))) if z else float("nan"),
               "at_bound": sum(1 for q in ident.values() if q["at_bound"]),
               "cost": fit["cost"], "termination": fit["termination"], "seconds": fit["wall_seconds"],
               "verdict": check.get("verdict", ""),
               "reduced_chi2": check.get("reduced_chi2", fit["identifiability"].get("reduced_chi2") or float("nan")),
               "sigma_basis": fit["identifiability"].get("sigma_basis", ""),
               "k_z": [round((par[k] - v) / ident[k]["std_absolute"], 2) for k, v in truth.items() if k.startswith("k_")],
               "k_err": {k: abs(par[k] / v - 1) for k, v in truth.items() if k.startswith("k_")},
               "mass_err": {k: par[k] / v - 1 for k, v in truth.items() if k.startswith("m_")},
               "mass_sigma": {k: ident[k]["std_absolute"] / abs(par[k]) for k in truth if k.startswith("m_")},
               "k_sigma": {k: ident[k]["std_absolute"] / abs(par[k]) for k in truth if k.startswith("k_")},
               "unexplained": [round(m["frequency_hz"], 2) for m in check.get("unexplained_modes", [])],
               "unexplained_error_worst": max(extra_err) if extra_err else float("nan"),
               "reasons": check.get("reasons", [])}
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(f"trial {t}: k err median {100 * row['k_err_median']:.3f} % worst {100 * row['k_err_worst']:.2f} %"
                  f" | check posture f err median {100 * row['f_err_median']:.3f} % worst {100 * row['f_err_worst']:.3f} %"
                  f" zeta err median {100 * row['zeta_err_median']:.1f} %"
                  f" | within 2 sigma {100 * row['within_2sigma']:.0f} % median |z| {row['median_abs_z']:.2f}"
                  f" | at bound {row['at_bound']} | {row['termination']} {row['seconds']:.2f} s"
                  f" | {row['verdict']} chi2 {row['reduced_chi2']:.3g} {row['sigma_basis']} {row['unexplained']}", flush=True)
            print("    stiffness z:", row["k_z"])
            print("    stiffness error %:", {k[2:]: round(100 * v, 2) for k, v in row["k_err"].items()})
            print("    stiffness 1 sigma %:", {k[2:]: round(100 * v, 2) for k, v in row["k_sigma"].items()})
            if row["mass_err"]:
                print("    mass error % (1 sigma %):", {k: f"{100 * v:+.3f} ({100 * row['mass_sigma'][k]:.3f})"
                                                      for k, v in row["mass_err"].items()})
    if not args.json:
        def med(key):
            return float(np.median([r[key] for r in rows]))
        allk = max(r["k_err_worst"] for r in rows)
        print(f"ALL {args.family} {args.case} ({len(postures)} postures): k err median-of-medians {100 * med('k_err_median'):.3f} %"
              f" worst {100 * allk:.2f} % | f err median {100 * med('f_err_median'):.3f} %"
              f" worst {100 * max(r['f_err_worst'] for r in rows):.3f} % | zeta median {100 * med('zeta_err_median'):.1f} %"
              f" | fitted posture f err worst {100 * max(r['f_err_fitted_worst'] for r in rows):.3f} %"
              f" | 2 sigma {100 * np.mean([r['within_2sigma'] for r in rows]):.0f} %"
              f" median |z| {med('median_abs_z'):.2f} | verdicts {[r['verdict'] for r in rows]}")
        z_all = [abs(z) for r in rows for z in r["k_z"]]
        worst = {k: max(r["k_err"][k] for r in rows) for k in rows[0]["k_err"]}
        print("    worst error per stiffness %:", {k[2:]: round(100 * v, 2) for k, v in worst.items()})
        print(f"    worst stiffness 1 sigma per trial %: {[round(100 * max(r['k_sigma'].values()), 2) for r in rows]}")
        print(f"    stiffnesses only: {100 * np.mean([z < 2 for z in z_all]):.0f} % within 2 sigma, median |z| {np.median(z_all):.2f}")
        for k in rows[0]["mass_err"]:
            print(f"    {k}: worst error {100 * max(abs(r['mass_err'][k]) for r in rows):.3f} %,"
                  f" within 2 sigma in {sum(abs(r['mass_err'][k]) < 2 * r['mass_sigma'][k] for r in rows)} of {len(rows)}")


if __name__ == "__main__":
    sys.exit(main())
