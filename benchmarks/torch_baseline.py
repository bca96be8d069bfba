#!/usr/bin/env python3
"""PyTorch baseline for the evaluator: the same line costs, computed with torch's batched complex
solve on a batch written by build/benchmarks/export_random_batch (the batches gpu_evaluator_bench
times), so frfit's GPU figures have an outside implementation to be compared with.

For every (problem, individual, posture, line) it assembles
    Z = G + diag(k) - w^2 M + i (w (diag(c) + alpha M) + diag(h)),
solves Z X = B (three right-hand sides, torch.linalg.solve, complex128), projects H = B^T X,
converts to the posture's format ((i w)^order), and sums w_e |log H_e - log H_meas,e|^2 with the
phase difference wrapped into (-pi, pi] (kernels/line_cost.h, the paper's Eq. 22), weighted per
posture. Two timings per batch, each the median of --repeat runs after one warm-up, synchronised:
  solve:  torch.linalg.solve alone on Z already assembled on the device (the bare batched solve),
  cost:   the whole cost, from the packed coefficients to one cost per (problem, individual).
Both are reported as line-solves per second. The costs are checked against the cpu backend's
(max relative difference; torch orders its arithmetic differently, so equality is not expected).

    python3 benchmarks/torch_baseline.py /tmp/batch_n9.h5 [--device cuda] [--repeat 5] [--chunk-mib 2048]

Needs torch and h5py; never a runtime dependency of frfit.
"""
import argparse
import json
import math
import sys
import time

import h5py
import torch


def load(path, device):
    with h5py.File(path, "r") as f:
        data = {k: torch.from_numpy(f[k][...]).to(device) for k in f.keys()}
    if int(data["cost_kind"][0]) != 0 or int(data["phase_mode"][0]) != 0:
        sys.exit("torch_baseline: only the log-complex cost with the wrapped phase is implemented")
    return data


def assemble(d, p0, p1):
    """Z [lines of problems p0..p1, all individuals, postures, lines][n][n] and B [..][n][3]."""
    n = d["mass"].shape[-1]
    coef = d["coefficients"][p0:p1]                      # [p][i][q][3n+1]
    k, c, h = coef[..., :n], coef[..., n:2 * n], coef[..., 2 * n:3 * n]
    alpha = coef[..., 3 * n]                             # [p][i][q]
    w = d["omega_rad_s"][p0:p1][:, None, :, :]           # [p][1][q][l]
    mass = d["mass"][p0:p1][:, None, :, None]            # [p][1][q][1][n][n]
    grav = d["gravity"][p0:p1][:, None, :, None]
    re = grav - (w * w)[..., None, None] * mass
    im = (w * alpha[..., None])[..., None, None] * mass
    eye = torch.eye(n, dtype=torch.float64, device=coef.device)
    re = re + k[..., None, :, None] * eye
    im = im + (w[..., None] * c[..., None, :] + h[..., None, :])[..., :, None] * eye
    z = torch.complex(re, im)                            # [p][i][q][l][n][n]
    b = d["basis"][p0:p1][:, None, :, None].to(torch.complex128).expand(
        -1, coef.shape[1], -1, w.shape[-1], -1, -1)      # [p][i][q][l][n][3]
    return z, b


def cost(d, p0, p1):
    """Costs [p1 - p0][individuals] of problems p0..p1."""
    z, b = assemble(d, p0, p1)
    x = torch.linalg.solve(z, b)
    hs = b.transpose(-1, -2) @ x                         # [p][i][q][l][3][3]: H_ij = sum_r B_ri X_rj
    w = d["omega_rad_s"][p0:p1][:, None, :, :, None, None]
    order = d["fit_order"][p0:p1][:, None, :, None, None, None]
    hs = hs * torch.where(order == 1, 1j * w, torch.where(order == 2, -(w * w), torch.ones_like(w)))
    hs = hs.reshape(*hs.shape[:4], 9)
    target = d["target"][p0:p1][:, None]                 # [p][1][q][l][9][2]
    dm = torch.log(torch.abs(hs)) - target[..., 0]
    dp = torch.angle(hs) - target[..., 1]
    dp = torch.where(dp > math.pi, dp - 2 * math.pi, torch.where(dp <= -math.pi, dp + 2 * math.pi, dp))
    err = d["weight"][p0:p1][:, None] * (dm * dm + dp * dp)
    per_posture = err.sum(dim=(-1, -2))                  # [p][i][q]
    return (per_posture * d["posture_weight"][p0:p1][:, None]).sum(dim=-1)


def chunks(d, chunk_mib):
    """Problem ranges whose Z, B, X and temporaries fit in about chunk_mib MiB."""
    p, i, q, l = d["coefficients"].shape[0], d["coefficients"].shape[1], d["mass"].shape[1], d["omega_rad_s"].shape[-1]
    n = d["mass"].shape[-1]
    bytes_per_problem = i * q * l * 16 * (3 * n * n + 12 * n + 60)
    step = max(1, int(chunk_mib * 2**20 // bytes_per_problem))
    return [(p0, min(p, p0 + step)) for p0 in range(0, p, step)]


def timed(fn, device, repeat):
    fn()  # warm-up: kernels, cuBLAS/cuSOLVER handles, allocator
    times = []
    for _ in range(repeat):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("batch", help="HDF5 file from export_random_batch")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--chunk-mib", type=float, default=2048.0)
    ap.add_argument("--json", action="store_true", help="one JSON object instead of text")
    args = ap.parse_args()
    device = torch.device(args.device)
    d = load(args.batch, device)
    p, i, q, n = d["coefficients"].shape[0], d["coefficients"].shape[1], d["mass"].shape[1], d["mass"].shape[-1]
    lines = p * i * q * d["omega_rad_s"].shape[-1]
    ranges = chunks(d, args.chunk_mib)

    # The bare solve: Z assembled beforehand (one chunk, reused for every chunk of the batch when
    # the whole batch does not fit, so that the timing counts every line of the batch once).
    z0, b0 = assemble(d, *ranges[0])
    lines0 = z0.shape[0] * z0.shape[1] * z0.shape[2] * z0.shape[3]
    solve_s = timed(lambda: torch.linalg.solve(z0, b0), device, args.repeat) * lines / lines0
    del z0, b0

    costs = torch.empty(p, i, dtype=torch.float64, device=device)

    def whole():
        for p0, p1 in ranges:
            costs[p0:p1] = cost(d, p0, p1)

    cost_s = timed(whole, device, args.repeat)
    cpu = d["cpu_cost"]
    ok = d["cpu_status"] == 0
    rel = ((costs - cpu).abs() / cpu.abs())[ok]
    result = {
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "torch": torch.__version__, "n": n, "problems": p, "individuals": i, "postures": q,
        "lines": lines, "chunks": len(ranges),
        "solve_seconds": solve_s, "solve_line_solves_per_s": lines / solve_s,
        "cost_seconds": cost_s, "cost_line_solves_per_s": lines / cost_s,
        "cost_evals_per_s": p * i / cost_s,
        "max_rel_diff_vs_cpu": float(rel.max()) if rel.numel() else None,
        "cpu_ok": int(ok.sum()), "torch_finite_where_cpu_ok": int(torch.isfinite(costs[ok]).sum()),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"torch {result['torch']} on {result['device']}: n={n}, {p}x{i}x{q}x{lines // (p * i * q)} "
              f"= {lines} lines in {len(ranges)} chunk(s)")
        print(f"  torch.linalg.solve alone: {solve_s * 1e3:.2f} ms = {lines / solve_s / 1e6:.3f} M line-solves/s")
        print(f"  whole cost:               {cost_s * 1e3:.2f} ms = {lines / cost_s / 1e6:.3f} M line-solves/s")
        print(f"  costs vs cpu backend: max relative difference {result['max_rel_diff_vs_cpu']:.3e} "
              f"over {result['cpu_ok']} ok individuals")


if __name__ == "__main__":
    main()
