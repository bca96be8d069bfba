#!/usr/bin/env python3
"""Fitting measured modes instead of FRFs: what modes lose in accuracy and save in time.
(docs/fit-config.md, "Modal data"; numbers in benchmarks/RESULTS.md)

KUKA KR90 (datasets/kuka_kr90) with the parameters of params_from34.yaml, impact-test noise (3 %
of each value and a floor at 0.1 % of each entry's peak, the noise model in the file), three
postures (milling, reach, folded), 0.2-30 Hz. Per trial (its own noise seeds):

  modes tip    `frfit ema` of each posture's tool-tip set, fitted with --modes alone (3 files)
  modes 3pt    the same at the three points of the multi-point sets (responses at the tool tip,
               the elbow joint3 and joint2, the hammer at the tool tip): --modes of 9 files
  frf tip      the FRF fit of the tool-tip sets (--frf, the same data the tip modes came from)
  frf 3pt      the FRF fit of the nine sets

Each with datasets/kuka_kr90/fit.yaml, stiffnesses free, dampings fixed at the truth (the modes
carry little of them: damping is off in the modal cost by default). Reported per case: the
stiffness errors in their own 1σ (z = (fitted − true)/σ) over all trials — calibrated σ put about
68 % of |z| below 1 and 99.7 % below 3 — the median relative 1σ, and the median wall time of the
fit itself (`frfit ema` on the sets is timed separately).

  python3 benchmarks/modes_vs_frf.py [--trials N] [--build build] [--threads T]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KUKA = os.path.join(ROOT, "datasets", "kuka_kr90")
POSTURES = ["milling", "reach", "folded"]
POINTS = ["", "joint3", "joint2"]  # response frames; "" = the tool tip
STIFFNESSES = ["k_z1", "k_x1", "k_y1", "k_z2", "k_x2", "k_y2", "k_z3", "k_x3", "k_y3"]


def run(frfit, *args):
    return subprocess.run([frfit, *args], check=True, capture_output=True, text=True).stdout


def truth():
    values = {}
    with open(os.path.join(KUKA, "params_from34.yaml")) as f:
        for line in f:
            parts = line.split(":")
            if len(parts) == 2 and parts[0].strip().startswith(("k_", "d_")):
                values[parts[0].strip()] = float(parts[1].split("#")[0])
    return values


def config(path, params):
    dampings = {k: v for k, v in params.items() if k.startswith("d_")}
    fixed = ", ".join(f"{k}: {v}" for k, v in dampings.items())
    with open(os.path.join(KUKA, "fit.yaml")) as f:
        text = f.read()
    text = text.replace("parameters:\n  initial: model\n",
                        f"parameters:\n  initial: model\n  fixed: {{{fixed}}}\n")
    with open(path, "w") as f:
        f.write(text)


def fit(frfit, args, threads):
    t0 = time.perf_counter()
    out = json.loads(run(frfit, "fit", "--model", os.path.join(KUKA, "model.yaml"), "--backend",
                         "cpu", "--threads", str(threads), "--json", *args))
    return out, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    frfit = os.path.join(a.build, "frfit")
    params = truth()
    cases = ["modes tip", "modes 3pt", "frf tip", "frf 3pt"]
    z = {c: [] for c in cases}
    rel_sigma = {c: [] for c in cases}
    rel_error = {c: [] for c in cases}
    seconds = {c: [] for c in cases}
    ema_seconds = []
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "fit.yaml")
        config(cfg, params)
        for trial in range(a.trials):
            frfs = {}
            for p, posture in enumerate(POSTURES):
                for q, frame in enumerate(POINTS):
                    path = os.path.join(tmp, f"{posture}_{frame or 'tip'}.h5")
                    extra = ["--response-frame", frame] if frame else []
                    run(frfit, "simulate", "--model", os.path.join(KUKA, "model.yaml"), "--posture",
                        posture, "--params", os.path.join(KUKA, "params_from34.yaml"), "--band",
                        "0.2:30:0.2", "--noise", "0.03:0.001", "--seed",
                        str(1000 * trial + 10 * p + q + 1), "--out", path, *extra)
                    frfs[(posture, frame)] = path
            emas = {}
            t0 = time.perf_counter()
            for key, path in frfs.items():
                emas[key] = path.replace(".h5", "_ema.h5")
                run(frfit, "ema", path, "--out", emas[key])
            ema_seconds.append(time.perf_counter() - t0)
            tip = [k for k in frfs if k[1] == ""]
            inputs = {
                "modes tip": ["--modes", ",".join(emas[k] for k in tip)],
                "modes 3pt": ["--modes", ",".join(emas.values())],
                "frf tip": ["--frf", ",".join(frfs[k] for k in tip)],
                "frf 3pt": ["--frf", ",".join(frfs.values())],
            }
            for case in cases:
                out, wall = fit(frfit, ["--config", cfg, *inputs[case]], a.threads)
                seconds[case].append(out.get("wall_seconds", wall))
                ident = out["identifiability"]["parameters"]
                for name in STIFFNESSES:
                    sigma = ident[name]["std_absolute"]
                    if sigma is None:
                        print(f"{case}: no finite 1σ for {name}: {json.dumps(ident[name])}")
                        sigma = float("nan")
                    error = out["parameters"][name] - params[name]
                    z[case].append(error / sigma)
                    rel_sigma[case].append(sigma / params[name])
                    rel_error[case].append(abs(error) / params[name])
            print(f"trial {trial + 1}/{a.trials} done", flush=True)
    print(f"\nKUKA, 3 postures, noise 3 % + 0.1 % of peak, {a.trials} trials x 9 stiffnesses; "
          f"frfit ema on the 9 sets: median {np.median(ema_seconds):.2f} s per trial")
    print(f"{'case':10s} {'|z|<1':>7s} {'|z|<2':>7s} {'|z|<3':>7s} {'max|z|':>7s} "
          f"{'med 1σ':>8s} {'med err':>8s} {'max err':>8s} {'fit s':>7s}")
    for c in cases:
        zz = np.abs(np.asarray(z[c]))
        zz = zz[np.isfinite(zz)]
        print(f"{c:10s} {100 * np.mean(zz < 1):6.1f}% {100 * np.mean(zz < 2):6.1f}% "
              f"{100 * np.mean(zz < 3):6.1f}% {zz.max():7.2f} "
              f"{100 * np.median(rel_sigma[c]):7.2f}% {100 * np.median(rel_error[c]):7.2f}% "
              f"{100 * np.max(rel_error[c]):7.2f}% {np.median(seconds[c]):7.2f}")


if __name__ == "__main__":
    main()
