#!/usr/bin/env python3
"""An independent numpy implementation of the zero-order stability lobes of Altintas & Budak
(CIRP Annals 44(1), 1995) that `frfit lobes` computes, run on the very FRF samples frfit used.

    build/frfit lobes ... --cut CUT.yaml --frf-out frf.csv --json > lobes.json
    python3 benchmarks/lobes_reference.py frf.csv lobes.json [--tolerance 0.01]

Reads the cut's numbers (teeth, angles, K_t, K_r/K_t, speed grid) from frfit's JSON, computes
the directional factors, the eigenvalues of Phi*alpha (numpy.linalg.eigvals), the lobes and their
envelope itself, and compares the critical depth, the depth at any speed and every lobe's minimum
(depth and spindle speed). Prints one line per quantity; exit status 1 when any differs by more
than the tolerance (relative), 0 otherwise. Only numpy.
"""
import argparse
import csv
import json
import math
import sys

import numpy as np


def directional_factors(entry, exit_, kr):
    def primitive(p):
        c, s = math.cos(2 * p), math.sin(2 * p)
        return np.array([[c - 2 * kr * p + kr * s, -s - 2 * p + kr * c],
                         [-s + 2 * p + kr * c, -c - 2 * kr * p - kr * s]]) / 2
    return primitive(exit_) - primitive(entry)


def read_frf(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header, data = rows[0], np.array(rows[1:], dtype=float)
    assert header[0] == "frequency_hz", header
    f = data[:, 0]
    phi = np.empty((len(f), 2, 2), dtype=complex)
    for e, name in enumerate(["xx", "xy", "yx", "yy"]):
        re, im = data[:, header.index(name + "_re")], data[:, header.index(name + "_im")]
        phi[:, e // 2, e % 2] = re + 1j * im
    return f, phi


def eigenvalues_continuous(m):
    lam = np.linalg.eigvals(m)  # (lines, 2), order arbitrary
    for l in range(1, len(lam)):
        a, b = lam[l]
        if abs(a - lam[l - 1, 0]) + abs(b - lam[l - 1, 1]) > abs(b - lam[l - 1, 0]) + abs(a - lam[l - 1, 1]):
            lam[l] = [b, a]
    return lam


def lobes(f, phi, cut):
    n_teeth, kt = cut["teeth"], cut["kt_n_per_m2"]
    alpha = directional_factors(math.radians(cut["entry_angle_deg"]),
                                math.radians(cut["exit_angle_deg"]), cut["kr_ratio"])
    lam = eigenvalues_continuous(phi @ alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        Lam = -1.0 / lam  # roots of det(I + Lambda Phi alpha) = 0
        kappa = Lam.imag / Lam.real
        depth = -2 * math.pi * Lam.real * (1 + kappa ** 2) / (n_teeth * kt)
    valid = (lam.real > 1e-12 * np.abs(lam).max()) & np.isfinite(depth)  # 0 but for rounding: 0
    depth = np.where(valid, depth, np.nan)
    eps = math.pi - 2 * np.arctan(kappa)
    speeds = np.array(cut["spindle_speed_rpm"])
    n0, n1 = speeds[0], speeds[-1]
    envelope = np.full(len(speeds), np.inf)
    omega = 2 * math.pi * f[:, None]
    k_count = cut["lobes_computed"]
    minima = {}
    for k in range(k_count):
        n = 60 * omega / (n_teeth * (eps + 2 * math.pi * k))
        inside = valid & (n >= n0) & (n <= n1)
        if inside.any():
            i = np.nanargmin(np.where(inside, depth, np.nan))
            minima[k] = (depth.flat[i], n.flat[i])
        for b in range(2):
            nb, ab, ok = n[:, b], depth[:, b], valid[:, b]
            seg = ok[:-1] & ok[1:]
            for l in np.nonzero(seg)[0]:
                lo, hi = sorted((nb[l], nb[l + 1]))
                if hi < n0 or lo > n1:
                    continue
                g = np.nonzero((speeds >= lo) & (speeds <= hi))[0]
                if len(g) == 0:
                    continue
                t = (speeds[g] - nb[l]) / (nb[l + 1] - nb[l]) if hi > lo else 0.0
                envelope[g] = np.minimum(envelope[g], ab[l] + t * (ab[l + 1] - ab[l]))
    return {"critical_depth_m": envelope.min(),
            "critical_spindle_speed_rpm": speeds[np.argmin(envelope)],
            "absolute_critical_depth_m": np.nanmin(depth),
            "envelope": envelope, "minima": minima}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("frf_csv")
    ap.add_argument("lobes_json")
    ap.add_argument("--tolerance", type=float, default=0.01)
    args = ap.parse_args()
    f, phi = read_frf(args.frf_csv)
    with open(args.lobes_json) as fh:
        frfit = json.load(fh)
    ref = lobes(f, phi, frfit)
    worst, bad = 0.0, []

    def compare(name, ours, theirs):
        nonlocal worst
        rel = abs(theirs / ours - 1)
        worst = max(worst, rel)
        print("%-34s frfit %-13.7g numpy %-13.7g rel %.2e" % (name, theirs, ours, rel))
        if not rel <= args.tolerance:
            bad.append(name)

    compare("critical_depth_m", ref["critical_depth_m"], frfit["critical_depth_m"])
    compare("critical_spindle_speed_rpm", ref["critical_spindle_speed_rpm"],
            frfit["critical_spindle_speed_rpm"])
    compare("absolute_critical_depth_m", ref["absolute_critical_depth_m"],
            frfit["absolute_critical_depth_m"])
    theirs = {m["k"]: m for m in frfit["lobes"]}
    if sorted(theirs) != sorted(ref["minima"]):
        bad.append("lobe set %s vs %s" % (sorted(theirs), sorted(ref["minima"])))
    for k in sorted(ref["minima"]):
        if k in theirs:
            compare("lobe %d min depth_m" % k, ref["minima"][k][0], theirs[k]["depth_m"])
            compare("lobe %d min spindle_speed_rpm" % k, ref["minima"][k][1],
                    theirs[k]["spindle_speed_rpm"])
    env = np.array([np.inf if v is None else v for v in frfit["depth_limit_m"]])
    both = np.isfinite(env) & np.isfinite(ref["envelope"])
    same_inf = np.array_equal(np.isfinite(env), np.isfinite(ref["envelope"]))
    env_rel = np.max(np.abs(env[both] / ref["envelope"][both] - 1)) if both.any() else 0.0
    print("%-34s max rel %.2e over %d speeds (same uncovered speeds: %s)" %
          ("depth_limit_m (envelope)", env_rel, both.sum(), same_inf))
    if not (env_rel <= args.tolerance and same_inf):
        bad.append("envelope")
    print("lines %d, lobes %d, worst rel %.2e: %s" % (len(f), len(ref["minima"]), max(worst, env_rel),
                                                      "FAIL " + ", ".join(bad) if bad else "agree"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
