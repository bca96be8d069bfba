#!/usr/bin/env python3
"""Cross-check of `frfit ema` against sdypy-EMA (PyPI package sdypy-EMA) on the same FRF sets.

For each bundled FRF set whose truth is known (the model's modes with the parameters the set was
synthesised from, as `frfit modal --params` prints them), clean and with complex noise added
(h += |h|*level/sqrt(2)*(n_re + i n_im), standard normal n, numpy seed given), the script runs in
the same process run:

  frfit ema FILE --json                        poly-reference LSCF, automatic pole selection
  sdypy.EMA.Model(...).get_poles('lscf')      common-denominator LSCF on all nine entries,
      .select_closest_poles(true frequencies)  its stable poles nearest the true modes

and prints one table row per true mode in the band: frequency and damping ratio of the truth, of
frfit and of sdypy, and their relative errors. Frequencies are damped natural frequencies
(Im(lambda)/2pi, frfit's convention); sdypy reports |lambda|/2pi, converted here. sdypy's pole
picking searches windows of whole hertz sized for structures with modes kilohertz apart (at
least +-2 Hz, wider than the 1 Hz between the KUKA's first two modes), so its frequency axis is
given in hundredths of a hertz and its frequencies divided by 100 again: the LSCF basis and every
damping ratio are invariant to that scaling (the z-domain angle is omega*dt with dt = 1/(2 f_max)).

    python3 benchmarks/ema_crosscheck.py [--frfit build/frfit] [--noise 0.02] [--seed 1]
           [--sdypy-order 60]

Needs numpy, h5py and sdypy-EMA; never a dependency of frfit or of its tests.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TQDM_DISABLE", "1")  # sdypy's progress bars

import h5py
import numpy as np
from sdypy import EMA

SDYPY_FREQUENCY_SCALE = 100.0

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = [
    ("paper_3dof", "milling", "params_table1.yaml"),
    ("kuka_kr90", "milling", "params_from34.yaml"),
    ("kuka_kr90", "reach", "params_from34.yaml"),
    ("kuka_kr90", "folded", "params_from34.yaml"),
]


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def read_frf(path):
    with h5py.File(path, "r") as f:
        freq = f["frequency_hz"][...]
        h = f["H"][..., 0] + 1j * f["H"][..., 1]
        present = f["present"][...].astype(bool)
        fmt = f.attrs["format"]
        fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
    return freq, h, present, fmt


def noisy_copy(src, dst, level, seed):
    rng = np.random.default_rng(seed)
    with h5py.File(src, "r") as f_in, h5py.File(dst, "w") as f_out:
        for key in f_in:
            f_in.copy(key, f_out)
        for key, value in f_in.attrs.items():
            f_out.attrs[key] = value
        h = f_in["H"][..., 0] + 1j * f_in["H"][..., 1]
        h = h + np.abs(h) * level / math.sqrt(2) * (rng.standard_normal(h.shape) + 1j * rng.standard_normal(h.shape))
        f_out["H"][..., 0] = h.real
        f_out["H"][..., 1] = h.imag


def sdypy_modes(path, approx_hz, order):
    freq, h, present, fmt = read_frf(path)
    form = {"receptance": "receptance", "mobility": "mobility", "inertance": "accelerance"}[fmt]
    frf = np.array([h[:, i, j] for i in range(3) for j in range(3) if present[i, j]])
    scale = SDYPY_FREQUENCY_SCALE
    model = EMA.Model(frf=frf, freq=freq * scale, lower=float(freq[0] * scale), upper=float(freq[-1] * scale),
                      pol_order_high=order, frf_form=form)
    model.get_poles(method="lscf", show_progress=False)
    model.select_closest_poles([f * scale for f in approx_hz])
    f_n = np.asarray(model.nat_freq, dtype=float) / scale
    zeta = np.asarray(model.nat_xi, dtype=float)
    return f_n * np.sqrt(1.0 - zeta ** 2), zeta  # damped frequency, as frfit reports


def nearest(values, target):
    return min(values, key=lambda m: abs(m[0] - target)) if values else (math.nan, math.nan)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frfit", default=os.path.join(ROOT, "build", "frfit"))
    parser.add_argument("--noise", type=float, default=0.02, help="relative complex noise of the noisy variant")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sdypy-order", type=int, default=60, help="sdypy-EMA pol_order_high")
    args = parser.parse_args()

    print(f"# frfit ema vs sdypy-EMA {getattr(EMA, '__version__', '?')}, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"# noise {args.noise} (seed {args.seed}); sdypy pol_order_high {args.sdypy_order}")
    header = ("set", "noise", "mode", "f_true", "f_frfit", "f_sdypy", "df_frfit%", "df_sdypy%",
              "z_true%", "z_frfit%", "z_sdypy%", "dz_frfit%", "dz_sdypy%")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    worst = {"frfit": [0.0, 0.0], "sdypy": [0.0, 0.0]}
    with tempfile.TemporaryDirectory() as tmp:
        for dataset, posture, params in SETS:
            directory = os.path.join(ROOT, "datasets", dataset)
            clean = os.path.join(directory, f"frf_{posture}_inertance.h5")
            truth = run_json([args.frfit, "modal", "--model", os.path.join(directory, "model.yaml"), "--posture",
                              posture, "--params", os.path.join(directory, params), "--json"])["modes"]
            f_max = read_frf(clean)[0][-1]
            truth = [(m["frequency_hz"], m["damping_ratio"]) for m in truth if m["frequency_hz"] <= f_max]
            noisy = os.path.join(tmp, f"{dataset}_{posture}_noisy.h5")
            noisy_copy(clean, noisy, args.noise, args.seed)
            for label, path in (("0", clean), (f"{args.noise:g}", noisy)):
                t0 = time.perf_counter()
                ema = run_json([args.frfit, "ema", path, "--json"])
                t_frfit = time.perf_counter() - t0
                ours = [(m["frequency_hz"], m["damping_ratio"]) for m in ema["modes"]]
                t0 = time.perf_counter()
                theirs = list(zip(*sdypy_modes(path, [f for f, _ in truth], args.sdypy_order)))
                t_sdypy = time.perf_counter() - t0
                for k, (f, z) in enumerate(truth):
                    fo, zo = nearest(ours, f)
                    fs, zs = nearest(theirs, f)
                    row = [f"{dataset}/{posture}", label, str(k + 1), f"{f:.4f}", f"{fo:.4f}", f"{fs:.4f}",
                           f"{100 * (fo - f) / f:+.3f}", f"{100 * (fs - f) / f:+.3f}", f"{100 * z:.3f}",
                           f"{100 * zo:.3f}", f"{100 * zs:.3f}", f"{100 * (zo - z) / z:+.2f}",
                           f"{100 * (zs - z) / z:+.2f}"]
                    print("| " + " | ".join(row) + " |")
                    for name, fe, ze in (("frfit", fo, zo), ("sdypy", fs, zs)):
                        worst[name][0] = max(worst[name][0], abs(fe - f) / f)
                        worst[name][1] = max(worst[name][1], abs(ze - z) / z)
                print(f"# {dataset}/{posture} noise {label}: frfit found {len(ours)} modes "
                      f"({len(truth)} true) in {t_frfit:.2f} s; sdypy {t_sdypy:.2f} s", file=sys.stderr)
    for name, (wf, wz) in worst.items():
        print(f"# worst {name}: frequency {100 * wf:.3f} %, damping {100 * wz:.2f} %")


if __name__ == "__main__":
    main()
