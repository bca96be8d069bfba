#!/usr/bin/env python3
"""Does frfit map's 1σ match the spread of refits? (docs/posture-map.md)

N noisy measurements of the KUKA model (truth: datasets/kuka_kr90/params_from34.yaml; three
postures; 3 % relative noise and a floor at 0.1 % of each entry's peak, the noise model in the
files) are each fitted with the bundled configuration, and each fit is mapped over a grid of
postures none of which was measured. For every posture and quantity (mode frequencies and damping
ratios below --max-hz, the least stiffness along x, y, z) the spread of the N mapped values (their
standard deviation) is compared with the σ the maps report (root mean square over the N), and the
mapped values with the truth's map as z = (mapped - true) / σ.

  python3 benchmarks/map_sigma_check.py [--trials N] [--build build]

Needs numpy (pip).
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "datasets", "kuka_kr90")
GRID = "z2=40:100:30,z3=-150:-70:40"


def run(frfit, *args):
    return subprocess.run([frfit, *args], check=True, capture_output=True, text=True).stdout


def values(points, with_sigma):
    """[posture][quantity] values (and σ) in a fixed order: modes (f, ζ), then stiffness x, y, z."""
    out = []
    for p in points:
        row = []
        for m in p["modes"][:6]:
            row += [(m["frequency_hz"], m["frequency_hz_std"]), (m["damping_ratio"], m["damping_ratio_std"])]
        s = p["stiffness"]
        row += list(zip(s["axis_n_per_m"], s["axis_n_per_m_std"]))
        out.append([r if with_sigma else r[0] for r in row])
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    a = parser.parse_args()
    frfit = os.path.join(a.build, "frfit")
    model, truth = os.path.join(DATA, "model.yaml"), os.path.join(DATA, "params_from34.yaml")
    common = ["--model", model, "--posture", "milling", "--grid", GRID, "--max-hz", "40", "--json"]
    true_map = values(json.loads(run(frfit, "map", *common, "--params", truth))["points"], False)
    mapped = []
    with tempfile.TemporaryDirectory() as tmp:
        for trial in range(1, a.trials + 1):
            files = []
            for k, posture in enumerate(["milling", "reach", "folded"]):
                f = os.path.join(tmp, f"{posture}.h5")
                run(frfit, "simulate", "--model", model, "--posture", posture, "--params", truth,
                    "--band", "0.2:30:0.05", "--format", "inertance", "--noise", "0.03:0.001",
                    "--seed", str(100 * trial + k), "--out", f)
                files.append(f)
            result = os.path.join(tmp, "fit.h5")
            run(frfit, "fit", "--model", model, "--config", os.path.join(DATA, "fit.yaml"),
                "--frf", ",".join(files), "--seed", str(trial), "--out", result, "--quiet")
            mapped.append(values(json.loads(run(frfit, "map", *common, "--params", result))["points"], True))
    v = np.array([[[q[0] for q in p] for p in m] for m in mapped])      # trial, posture, quantity
    s = np.array([[[q[1] for q in p] for p in m] for m in mapped])
    t = np.array(true_map)
    ratio = v.std(axis=0, ddof=1) / np.sqrt((s ** 2).mean(axis=0))     # posture, quantity
    z = np.abs((v - t) / s)
    nq = v.shape[2]
    kinds = {"mode frequencies": slice(0, nq - 3, 2), "damping ratios": slice(1, nq - 3, 2),
             "least stiffness per axis": slice(nq - 3, nq)}
    print(f"{a.trials} fits, {v.shape[1]} postures of the grid {GRID}")
    for name, cut in kinds.items():
        r, zz = ratio[:, cut].ravel(), z[:, :, cut].ravel()
        print(f"{name:26s} spread/σ median {np.median(r):.2f}  (10-90 %: {np.percentile(r, 10):.2f}-"
              f"{np.percentile(r, 90):.2f})  within 2σ of the truth {100 * np.mean(zz < 2):5.1f} %  "
              f"median |z| {np.median(zz):.2f}")


if __name__ == "__main__":
    main()
