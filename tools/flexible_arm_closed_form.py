#!/usr/bin/env python3
"""The flexible arm's tip inertance from the continuous beam, not from frfit (datasets/flexible_arm).

The arm is a uniform Euler-Bernoulli beam of length L along x, a point mass m at its end:
  - y (in the plane the joint turns in): on a rotational spring k at the root,
      w(0) = 0,  EI w''(0) = k w'(0),  EI w''(L) = 0,  EI w'''(L) = -(F + w^2 m w(L));
  - z (out of that plane): clamped, w(0) = w'(0) = 0, the same end conditions;
  - x (along the arm): a rod clamped at the root, EA u'(L) = F + w^2 m u(L),
with the losses as complex moduli E(1 + i eta_arm), k(1 + i eta_z1). w(x) = a cos bx + b sin bx +
c cosh bx + d sinh bx, b^4 = w^2 rho A / EI; the rod u = sin(gx)/(EA g cos gL - w^2 m sin gL),
g = w sqrt(rho / E). The file holds the three diagonal entries (the cross ones are zero: the
planes and the axis decouple); --noise REL:FLOOR adds H*(REL*e1) + FLOOR*peak*e2 per line and
entry, e ~ CN(0, 1), as `frfit simulate --noise` does (docs/noise.md), and records its variance.

  python3 tools/flexible_arm_closed_form.py --out arm_cf.h5 [--noise 0.03:0.001 --seed 4]
"""
import argparse

import h5py
import numpy as np

# datasets/flexible_arm/README.md and params_truth.yaml
L, RHO, Y, Z, TIP_MASS = 1.0, 7850.0, 0.030, 0.050, 2.0
TRUTH = {"k_z1": 2.5e4, "eta_z1": 0.03, "E_arm": 2.1e11, "eta_arm": 0.002}


def bending_receptance(ei, rho_a, k, clamped, m, omega):
    """w(L)/F of the beam on a rotational spring k (or clamped), tip mass m."""
    beta = (omega**2 * rho_a / ei) ** 0.25
    bl = beta * L
    c, s, ch, sh = np.cos(bl), np.sin(bl), np.cosh(bl), np.sinh(bl)
    b2, b3, w2m = beta**2, beta**3, omega**2 * m
    a = np.zeros((4, 4), dtype=complex)
    rhs = np.zeros(4, dtype=complex)
    a[0] = [1, 0, 1, 0]                                  # w(0) = 0
    if clamped:
        a[1] = [0, beta, 0, beta]                        # w'(0) = 0
    else:                                                # EI w''(0) - k w'(0) = 0
        a[1] = [-ei * b2, -k * beta, ei * b2, -k * beta]
    a[2] = [-c, -s, ch, sh]                              # w''(L) = 0
    # EI w'''(L) + w^2 m w(L) = -F, F = 1
    a[3] = [ei * b3 * s + w2m * c, -ei * b3 * c + w2m * s, ei * b3 * sh + w2m * ch,
            ei * b3 * ch + w2m * sh]
    rhs[3] = -1.0
    x = np.linalg.solve(a, rhs)
    return x[0] * c + x[1] * s + x[2] * ch + x[3] * sh


def axial_receptance(ea, e, m, omega):
    g = omega * np.sqrt(RHO / e)
    return np.sin(g * L) / (ea * g * np.cos(g * L) - omega**2 * m * np.sin(g * L))


def inertance(truth, lines_hz):
    e = truth["E_arm"] * (1 + 1j * truth["eta_arm"])
    k = truth["k_z1"] * (1 + 1j * truth["eta_z1"])
    area, iz, iy = Y * Z, Z * Y**3 / 12, Y * Z**3 / 12
    h = np.zeros((len(lines_hz), 3, 3), dtype=complex)
    for n, f in enumerate(lines_hz):
        w = 2 * np.pi * f
        h[n, 0, 0] = axial_receptance(e * area, e, TIP_MASS, w)
        h[n, 1, 1] = bending_receptance(e * iz, RHO * area, k, False, TIP_MASS, w)
        h[n, 2, 2] = bending_receptance(e * iy, RHO * area, 0.0, True, TIP_MASS, w)
        h[n] *= -w * w
    return h


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--band", default="1:400:0.25", help="F0:F1:DF in Hz")
    p.add_argument("--noise", default="", help="REL:FLOOR, e.g. 0.03:0.001")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    f0, f1, df = (float(v) for v in a.band.split(":"))
    lines = f0 + df * np.arange(int(np.floor((f1 - f0) / df + 1e-9)) + 1)
    h = inertance(TRUTH, lines)
    present = np.eye(3, dtype=np.int64)
    variance = None
    if a.noise:
        rel, floor = (float(v) for v in a.noise.split(":"))
        rng = np.random.default_rng(a.seed)
        cn = lambda: (rng.standard_normal(h.shape) + 1j * rng.standard_normal(h.shape)) / np.sqrt(2)
        peak = np.abs(h).max(axis=0)
        variance = (rel * np.abs(h)) ** 2 + (floor * peak) ** 2
        h = h * (1 + rel * cn()) + floor * peak * cn()
        h *= present
        variance = np.where(present == 1, variance, 0.0)
    with h5py.File(a.out, "w") as out:
        out["frequency_hz"] = lines
        out["H"] = np.stack([h.real, h.imag], axis=-1)
        out["present"] = present
        if variance is not None:
            out["noise_variance"] = variance
        out.attrs["frfit_file"] = "frf_set"
        out.attrs["format"] = "inertance"
        out.attrs["units"] = "m/s^2/N"
        out.attrs["posture"] = "straight"
        prov = out.create_group("provenance")
        prov.attrs["generator"] = "tools/flexible_arm_closed_form.py (continuous beam)"
        prov.attrs["parameters"] = ";".join(f"{k}={v:g}" for k, v in TRUTH.items())
        if a.noise:
            prov.attrs["noise"] = f"{a.noise} seed {a.seed}"


if __name__ == "__main__":
    main()
