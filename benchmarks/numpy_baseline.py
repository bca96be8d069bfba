#!/usr/bin/env python3
"""NumPy baseline for the cpu evaluator: the same line costs with NumPy's batched complex solve, on
a batch written by build/benchmarks/export_random_batch (the systems cpu_evaluator_bench times in
its random/n:N rows when written with --problems 1 --individuals 80 --postures 1).

For every (problem, individual, posture, line) it assembles
    Z = G + diag(k) - w^2 M + i (w (diag(c) + alpha M) + diag(h)),
solves Z X = B (three right-hand sides, numpy.linalg.solve on complex128, LAPACK's zgesv per
matrix), projects H = B^T X, converts to the posture's format ((i w)^order), and sums
w_e |log H_e - log H_meas,e|^2 with the phase difference wrapped into (-pi, pi]
(kernels/line_cost.h, the paper's Eq. 22). Two timings, each the median of --repeat runs after a
warm-up, reported as line-solves per second:
  solve:  numpy.linalg.solve alone on Z and B already assembled (the bare batched solve),
  cost:   the whole cost, from the packed coefficients to one cost per (problem, individual).
The costs are checked against the cpu backend's (max relative difference; NumPy orders its
arithmetic differently, so equality is not expected).

    python3 benchmarks/numpy_baseline.py /tmp/batch_n9.h5 [--repeat 7] [--json]

Needs numpy and h5py; never a runtime dependency of frfit. benchmarks/cpu_vs_numpy.sh runs it and
cpu_evaluator_bench in one command.
"""
import argparse
import json
import sys
import time

import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        d = {k: f[k][...] for k in f.keys()}
    if int(d["cost_kind"][0]) != 0 or int(d["phase_mode"][0]) != 0:
        sys.exit("numpy_baseline: only the log-complex cost with the wrapped phase is implemented")
    return d


def assemble(d):
    """Z [p][i][q][l][n][n] and B [p][i][q][l][n][3], complex128."""
    n = d["mass"].shape[-1]
    coef = d["coefficients"]                             # [p][i][q][3n+1]
    k, c, h = coef[..., :n], coef[..., n:2 * n], coef[..., 2 * n:3 * n]
    alpha = coef[..., 3 * n]                             # [p][i][q]
    w = d["omega_rad_s"][:, None, :, :]                  # [p][1][q][l]
    mass = d["mass"][:, None, :, None]                   # [p][1][q][1][n][n]
    grav = d["gravity"][:, None, :, None]
    re = grav - (w * w)[..., None, None] * mass
    im = (w * alpha[..., None])[..., None, None] * mass
    diag = np.arange(n)
    re = re + np.zeros_like(im)
    re[..., diag, diag] += k[..., None, :]
    im = im + np.zeros_like(re)
    im[..., diag, diag] += w[..., None] * c[..., None, :] + h[..., None, :]
    z = re + 1j * im
    b = np.broadcast_to(d["basis"][:, None, :, None].astype(np.complex128),
                        z.shape[:4] + d["basis"].shape[-2:])
    return z, b


def cost(d):
    """Costs [p][individuals]."""
    z, b = assemble(d)
    x = np.linalg.solve(z, b)
    hs = np.swapaxes(b, -1, -2) @ x                      # H_ij = sum_r B_ri X_rj
    w = d["omega_rad_s"][:, None, :, :, None, None]
    order = d["fit_order"][:, None, :, None, None, None]
    hs = hs * np.where(order == 1, 1j * w, np.where(order == 2, -(w * w), np.ones_like(w)))
    hs = hs.reshape(*hs.shape[:4], 9)
    target = d["target"][:, None]                        # [p][1][q][l][9][2]
    dm = np.log(np.abs(hs)) - target[..., 0]
    dp = np.angle(hs) - target[..., 1]
    dp = np.where(dp > np.pi, dp - 2 * np.pi, np.where(dp <= -np.pi, dp + 2 * np.pi, dp))
    err = d["weight"][:, None] * (dm * dm + dp * dp)
    per_posture = err.sum(axis=(-1, -2))                 # [p][i][q]
    return (per_posture * d["posture_weight"][:, None]).sum(axis=-1)


def timed(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("batch", help="HDF5 file from export_random_batch")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="one JSON line instead of text")
    args = ap.parse_args()
    d = load(args.batch)
    p, i, q, n = d["coefficients"].shape[0], d["coefficients"].shape[1], d["mass"].shape[1], d["mass"].shape[-1]
    lines = p * i * q * d["omega_rad_s"].shape[-1]

    z, b = assemble(d)
    b = np.ascontiguousarray(b)
    solve_s = timed(lambda: np.linalg.solve(z, b), args.repeat)
    costs = cost(d)
    cost_s = timed(lambda: cost(d), args.repeat)
    ok = d["cpu_status"] == 0
    rel = (np.abs(costs - d["cpu_cost"]) / np.abs(d["cpu_cost"]))[ok]
    result = {
        "numpy": np.__version__, "n": int(n), "problems": int(p), "individuals": int(i),
        "postures": int(q), "lines": int(lines),
        "solve_seconds": solve_s, "solve_line_solves_per_s": lines / solve_s,
        "cost_seconds": cost_s, "cost_line_solves_per_s": lines / cost_s,
        "max_rel_diff_vs_cpu": float(rel.max()) if rel.size else None,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"numpy {result['numpy']}: n={n}, {lines} lines")
        print(f"  numpy.linalg.solve alone: {solve_s * 1e3:.2f} ms = {lines / solve_s / 1e6:.3f} M line-solves/s")
        print(f"  whole cost:               {cost_s * 1e3:.2f} ms = {lines / cost_s / 1e6:.3f} M line-solves/s")
        print(f"  costs vs cpu backend: max relative difference {result['max_rel_diff_vs_cpu']:.3e}")


if __name__ == "__main__":
    main()
