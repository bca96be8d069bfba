#!/usr/bin/env python3
"""Is the 1σ of predicted modes calibrated? (docs/identifiability.md, "Predicted modes")

Noisy measurements (3 % relative noise and a floor at 0.1 % of each entry's peak, with the noise
model in the file) of a model's own FRFs are fitted with the bundled configuration; the fitted
modes are compared with the true ones (the model's initial values, which `frfit simulate`
uses), as z = (fitted - true) / 1σ:

  - 3dof: the 3-joint example at its posture, 1-100 Hz, the fitted modes (fit's modal table);
  - kuka: the KUKA model at its three postures, 0.2-30 Hz, the fitted modes at those postures,
    and the modes `frfit modal --params` predicts at a posture between them (z2=55, z3=-80),
    including those above the measured band.

A calibrated σ puts 95 % of |z| below 2 with a median |z| of 0.67.

  python3 benchmarks/mode_sigma_calibration.py [--family 3dof|kuka] [--trials N] [--build build]

Needs numpy and h5py (pip); not used by any test (tests/unit/results/mode_uncertainty_test.cc checks
the 3dof case with 20 trials).
"""
import argparse
import json
import os
import subprocess
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(frfit, *args):
    return subprocess.run([frfit, *args], check=True, capture_output=True, text=True).stdout


def summary(name, z):
    z = np.abs(np.asarray(z))
    print(f"{name:42s} {len(z):4d} values  within 2σ {100 * np.mean(z < 2):5.1f} %  "
          f"median |z| {np.median(z):.2f}  max {z.max():.2f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", choices=["3dof", "kuka"], default="3dof")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    a = parser.parse_args()
    frfit = os.path.join(a.build, "frfit")
    data = os.path.join(ROOT, "datasets", "paper_3dof" if a.family == "3dof" else "kuka_kr90")
    model, config = os.path.join(data, "model.yaml"), os.path.join(data, "fit.yaml")
    postures = ["milling"] if a.family == "3dof" else ["milling", "reach", "folded"]
    band = "1:100:0.25" if a.family == "3dof" else "0.2:30:0.05"
    between = "z2=55,z3=-80"
    truth = json.loads(run(frfit, "modal", "--model", model, "--q", between, "--json"))["modes"]
    zf, zd, zp, zpd = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for trial in range(1, a.trials + 1):
            files = []
            for k, posture in enumerate(postures):
                files.append(os.path.join(tmp, f"{posture}.h5"))
                run(frfit, "simulate", "--model", model, "--posture", posture, "--band", band,
                    "--noise", "0.03:0.001", "--seed", str(100 * trial + k), "--out", files[-1])
            result = os.path.join(tmp, "result.h5")
            run(frfit, "fit", "--model", model, "--config", config, "--frf", ",".join(files),
                "--quiet", "--out", result)
            with h5py.File(result, "r") as f:
                for posture in postures:
                    t = f[f"postures/{posture}/modal_comparison"][()]
                    zf += list((t[:, 2] - t[:, 0]) / t[:, 7])
                    zd += list((t[:, 3] - t[:, 1]) / t[:, 8])
            if a.family == "kuka":
                modes = json.loads(run(frfit, "modal", "--model", model, "--q", between,
                                       "--params", result, "--json"))["modes"]
                for m, t in zip(modes, truth):
                    zp.append((m["frequency_hz"] - t["frequency_hz"]) / m["frequency_sigma_hz"])
                    zpd.append((m["damping_ratio"] - t["damping_ratio"]) / m["damping_ratio_sigma"])
    summary(f"{a.family}: fitted modes, frequency", zf)
    summary(f"{a.family}: fitted modes, damping ratio", zd)
    if zp:
        summary(f"{a.family}: predicted at {between}, frequency", zp)
        summary(f"{a.family}: predicted at {between}, damping ratio", zpd)


if __name__ == "__main__":
    main()
