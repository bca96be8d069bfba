#!/usr/bin/env python3
"""Writes a frfit-static-1 file of static deflection tests a model predicts (docs/static-tests.md).

At each posture a force of --force N along x, y and z of the force frame; the displacement at the
displacement frame from the model's static compliance with the given parameters (frfit simulate
in receptance at 0 Hz: H(0) = B_a^T K0^-1 B_b, gravity's tangent stiffness in K0), plus
N(0, --std m) per component when --std > 0 (seeded).

  python3 tools/make_static_tests.py --model M.yaml --params P.yaml --postures milling,reach \
      [--force 1000] [--std 1e-6] [--seed 1] [--force-frame F] [--frame F] [--frfit build/frfit] \
      --out static.yaml

Needs numpy and h5py.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def compliance(frfit, model, params, posture, response_frame, excitation_frame):
    """The 3x3 static compliance in m/N between the two frames ("" = the sensor)."""
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "h0.h5")
        cmd = [frfit, "simulate", "--model", model, "--posture", posture, "--params", params,
               "--band", "0:0:1", "--format", "receptance", "--out", out]
        if response_frame:
            cmd += ["--response-frame", response_frame]
        if excitation_frame:
            cmd += ["--excitation-frame", excitation_frame]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        with h5py.File(out, "r") as f:
            return f["H"][0, :, :, 0]  # real at 0 Hz


def write_static_tests(frfit, model, params, postures, force, std, seed, out,
                       force_frame="", frame="", description=""):
    rng = np.random.default_rng(seed)
    lines = ["format: frfit-static-1"]
    if description:
        lines.append(f"description: {description}")
    lines.append("tests:")
    ff = f"frame: {force_frame}, " if force_frame else ""
    df = f"frame: {frame}, " if frame else ""
    for p in postures:
        c = compliance(frfit, model, params, p, frame, force_frame)
        for axis in range(3):
            f_n = [0.0, 0.0, 0.0]
            f_n[axis] = force
            d = c @ np.array(f_n) + (rng.normal(0.0, std, 3) if std > 0 else 0.0)
            lines.append(f"  - {{posture: {p}, force: {{{ff}n: {f_n}}}, displacement: {{{df}m: "
                         f"[{d[0]:.9e}, {d[1]:.9e}, {d[2]:.9e}], std_m: {std if std > 0 else 1e-6}}}}}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--params", required=True)
    ap.add_argument("--postures", required=True)
    ap.add_argument("--force", type=float, default=1000.0)
    ap.add_argument("--std", type=float, default=1e-6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--force-frame", default="")
    ap.add_argument("--frame", default="")
    ap.add_argument("--description", default="")
    ap.add_argument("--frfit", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build", "frfit"))
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    write_static_tests(a.frfit, a.model, a.params, a.postures.split(","), a.force, a.std, a.seed,
                       a.out, a.force_frame, a.frame, a.description)


if __name__ == "__main__":
    sys.exit(main())
