#!/usr/bin/env python3
"""frfit frf's H1 and coherence against SciPy's on the same records and windows.

Writes simulated impact-test hits (three hammer axes, five good hits and one double hit each,
noise and offsets on every channel) as frfit time recordings (docs/file-formats.md), runs
`frfit frf` on them with an exponential window, and recomputes H1 = P_fx/P_ff and
γ² = |P_fx|²/(P_ff·P_xx) with scipy.signal.csd/welch: one segment per hit (nperseg = the record
length, detrend=False), the exponential window as the explicit window array, the force
pre-multiplied by frfit's force window, the pre-trigger mean removed first, and the spectra
averaged over the hits frfit kept. Prints the largest relative differences; exits 1 above 1e-10.

usage: impact_vs_scipy.py FRFIT_BINARY [WORKDIR]
"""
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from scipy import signal

FS, RECORD_S, PRE_S, PULSE_S = 1024.0, 4.0, 0.05, 0.012
MARGIN_S, TAPER_S, PULSE_FRACTION = 0.002, 0.002, 0.1   # frfit's defaults (impact/windows.h)
END_VALUE = 0.05                                          # --exponential-window end=0.05
MODES = [(12.0, 0.02, [1.0, 0.4, 0.6]), (25.0, 0.015, [-0.5, 1.0, 0.3]), (41.0, 0.01, [0.3, -0.6, 1.0])]


def simulate(axis, hit, rng, double):
    n = int(round(RECORD_S * FS))
    t = np.arange(n) / FS
    force = np.zeros(n)
    for t0, amp in [(PRE_S, 80.0 + 10 * hit)] + ([(PRE_S + 0.04, 40.0)] if double else []):
        u = t - t0
        force += np.where((u > 0) & (u < PULSE_S), amp * 0.5 * (1 - np.cos(2 * np.pi * u / PULSE_S)), 0.0)
    # Accelerations by convolution with the sampled impulse responses (any response will do: the
    # comparison is between two computations on the same samples).
    h = np.zeros((3, n))
    for f, z, phi in MODES:
        wn = 2 * np.pi * f
        wd = wn * np.sqrt(1 - z * z)
        g = np.exp(-z * wn * t) * np.sin(wd * t) / wd
        for i in range(3):
            h[i] += phi[i] * phi[axis] / 30.0 * g
    resp = np.array([np.convolve(force, np.gradient(np.gradient(h[i], t), t))[:n] / FS for i in range(3)])
    peak = np.abs(resp).max()
    force = force + 0.002 * 100 * rng.standard_normal(n) + 0.3
    resp = resp + 0.002 * peak * rng.standard_normal((3, n)) + 0.01 * peak
    return np.vstack([force[None, :], resp])


def write(path, hits, axis):
    with h5py.File(path + ".tmp", "w") as f:
        f.attrs["frfit_file"] = np.bytes_("time_recording")
        f.attrs["recording"] = np.bytes_("hits")
        f["sample_rate_hz"] = np.array([FS])
        g = f.create_group("channels")
        g["name"] = ["hammer", "acc_x", "acc_y", "acc_z"]
        g["quantity"] = ["force", "acceleration", "acceleration", "acceleration"]
        g["axis"] = np.array([axis, 0, 1, 2], dtype=np.int64)
        g["full_scale"] = np.zeros(4)
        f["samples"] = np.array(hits)                      # [hits][channels][samples]
    os.replace(path + ".tmp", path)


def pulse(force):
    peak = int(np.argmax(np.abs(force)))
    edge = PULSE_FRACTION * abs(force[peak])
    first = peak
    while first > 0 and abs(force[first]) >= edge:
        first -= 1
    last = peak
    while last < len(force) - 1 and abs(force[last]) >= edge:
        last += 1
    return first, last


def force_window(n, first, last):
    margin, taper = round(MARGIN_S * FS), round(TAPER_S * FS)
    k = np.arange(n)
    d = np.where(k < first - margin, first - margin - k, np.where(k > last + margin, k - last - margin, 0))
    w = np.where(d < taper, 0.5 * (1 + np.cos(np.pi * d / max(taper, 1))), 0.0)
    return np.where(d == 0, 1.0, w), max(0, first - margin - taper)


def main():
    frfit = sys.argv[1]
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
    rng = np.random.default_rng(1)
    files, records = [], []
    for axis in range(3):
        hits = [simulate(axis, k, rng, double=(k == 5)) for k in range(6)]
        files.append(os.path.join(work, "hits_%s.h5" % "xyz"[axis]))
        write(files[-1], hits, axis)
        records += [(axis, h) for h in hits]
    out = os.path.join(work, "frf.h5")
    run = subprocess.run([frfit, "frf", *files, "--out", out, "--json",
                          "--exponential-window", "end=%g" % END_VALUE, "--band", "0:60"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("frfit frf failed: " + run.stderr)
    summary = json.loads(run.stdout)
    rejected = {r["hit"] for r in summary["hits_rejected"]}
    with h5py.File(out, "r") as f:
        freq = f["frequency_hz"][:]
        H = f["H"][..., 0] + 1j * f["H"][..., 1]
        coh = f["coherence"][:]

    n = int(round(RECORD_S * FS))
    tau = RECORD_S / -np.log(END_VALUE)
    w_exp = np.exp(-np.arange(n) / (FS * tau))
    bins = np.rint(freq * n / FS).astype(int)
    worst_h = worst_c = 0.0
    for axis in range(3):
        pff = 0.0
        pfx = [0.0] * 3
        pxx = [0.0] * 3
        for index, (a, rec) in enumerate(records):
            if a != axis or index in rejected:
                continue
            first, last = pulse(rec[0])
            wf, dc_end = force_window(n, first, last)
            rec = rec - (rec[:, :dc_end].mean(axis=1, keepdims=True) if dc_end > 0 else 0.0)
            force = rec[0] * wf
            kw = dict(fs=FS, window=w_exp, nperseg=n, noverlap=0, detrend=False)
            _, p = signal.welch(force, **kw)
            pff = pff + p
            for i in range(3):
                _, p = signal.csd(force, rec[1 + i], **kw)   # conj(F)·X, frfit's G_fx
                pfx[i] = pfx[i] + p
                _, p = signal.welch(rec[1 + i], **kw)
                pxx[i] = pxx[i] + p
        for i in range(3):
            h1 = pfx[i][bins] / pff[bins]
            c = np.abs(pfx[i][bins]) ** 2 / (pff[bins] * pxx[i][bins])
            worst_h = max(worst_h, np.max(np.abs(H[:, i, axis] - h1) / np.abs(h1)))
            worst_c = max(worst_c, np.max(np.abs(coh[:, i, axis] - c) / c))
    print("hits used %d, rejected %s; %d lines %.4g-%.4g Hz" % (
        summary["hits_used"], sorted(rejected), len(freq), freq[0], freq[-1]))
    print("largest relative difference frfit vs scipy: H1 %.3g, coherence %.3g" % (worst_h, worst_c))
    ok = worst_h <= 1e-10 and worst_c <= 1e-10 and len(rejected) == 3
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
