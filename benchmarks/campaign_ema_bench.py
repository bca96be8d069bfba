#!/usr/bin/env python3
"""frfit ema on a roving-hammer campaign the size of a real lab test: 74 hammer points, three fixed
accelerometers (222 FRFs), 1600 lines 0.125-200 Hz, 13 modes (a pair 0.3 % apart), coherence,
impact-test noise (3 % of |H| plus 0.1 % of each FRF's peak), written as UFF 58 + 15 by pyuff.
Times `frfit ema CAMPAIGN.uff --json` and compares its modes with the ones chosen here.

  python3 benchmarks/campaign_ema_bench.py build/frfit [OUTDIR] [--single-reference]

Prints one JSON line: seconds, modes found, worst frequency and damping errors, worst MAC.
Numbers: benchmarks/RESULTS.md ("Campaign EMA").
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pyuff

LINES = 1600
FREQ = 0.125 * np.arange(1, LINES + 1)  # 0.125 .. 200 Hz
POINTS = 74
SENSORS = [(5, 1), (30, 2), (61, 3)]
MODES = [(12.0, 0.02), (21.5, 0.015), (33.0, 0.012), (47.0, 0.01), (61.0, 0.01), (61.183, 0.011),
         (78.0, 0.009), (95.0, 0.008), (112.0, 0.008), (131.0, 0.007), (149.0, 0.007),
         (168.0, 0.006), (186.0, 0.006)]


def shapes(rng):
    """phi[mode][node][axis]: a smooth frame-like pattern plus a random part."""
    x = np.linspace(0, 1, POINTS)
    phi = np.zeros((len(MODES), POINTS, 3))
    for m in range(len(MODES)):
        for a in range(3):
            phi[m, :, a] = np.sin((m + 1 + a) * np.pi * x + rng.uniform(0, np.pi)) + 0.3 * rng.normal(size=POINTS)
    return phi


def hammer_direction(node):
    return (node % 3) + 1


def frf(phi, sensor, node, rng):
    s = 2j * np.pi * FREQ
    h = np.zeros(LINES, complex)
    for m, (f, z) in enumerate(MODES):
        wd = 2 * np.pi * f
        lam = -z * wd / np.sqrt(1 - z * z) + 1j * wd
        r = phi[m, sensor[0] - 1, sensor[1] - 1] * phi[m, node - 1, hammer_direction(node) - 1] / (2j * wd)
        h += r / (s - lam) + np.conj(r) / (s - np.conj(lam))
    h = s * s * h  # inertance
    noise = 0.03 * np.abs(h) + 0.001 * np.max(np.abs(h))
    h_noisy = h + noise * (rng.normal(size=LINES) + 1j * rng.normal(size=LINES)) / np.sqrt(2)
    coh = np.clip(1.0 / (1.0 + (noise / np.maximum(np.abs(h), 1e-30)) ** 2), 0.0, 1.0)
    return h_noisy, coh


def record(sensor, node, data, func_type):
    return pyuff.prepare_58(
        binary=1, id1="bench", id2="NONE", id3="NONE", id4="NONE", id5="NONE",
        func_type=func_type, rsp_node=sensor[0], rsp_dir=sensor[1], ref_node=node,
        ref_dir=hammer_direction(node), ord_data_type=6 if func_type == 4 else 4, num_pts=LINES,
        abscissa_spacing=1, abscissa_min=FREQ[0], abscissa_inc=FREQ[1] - FREQ[0],
        abscissa_spec_data_type=18, abscissa_axis_units_lab="Hz",
        ordinate_spec_data_type=12 if func_type == 4 else 0,
        ordinate_axis_units_lab="m/s^2" if func_type == 4 else "NONE",
        orddenom_spec_data_type=13 if func_type == 4 else 0,
        orddenom_axis_units_lab="N" if func_type == 4 else "NONE", data=data, x=FREQ)


def write_campaign(out):
    """The campaign as OUT/campaign.uff; returns its path and the shapes chosen."""
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(45)
    phi = shapes(rng)
    path = os.path.join(out, "campaign.uff")
    if os.path.exists(path):
        os.remove(path)
    sets = [pyuff.prepare_15(node_nums=list(range(1, POINTS + 1)), def_cs=[0] * POINTS,
                             disp_cs=[0] * POINTS, color=[1] * POINTS,
                             x=list(np.linspace(0, 3, POINTS)), y=[0.0] * POINTS, z=[0.0] * POINTS)]
    for sensor in SENSORS:
        for node in range(1, POINTS + 1):
            h, g = frf(phi, sensor, node, rng)
            sets.append(record(sensor, node, h, 4))
            sets.append(record(sensor, node, g, 6))
    pyuff.UFF(path).write_sets(sets, mode="add")
    return path, phi


def main():
    frfit = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else "/tmp/campaign_bench"
    extra = [a for a in sys.argv[2:] if a.startswith("--")]
    path, phi = write_campaign(out)
    start = time.time()
    run = subprocess.run([frfit, "ema", path, "--json", "--averages", "10"] + extra,
                         capture_output=True, text=True)
    seconds = time.time() - start
    if run.returncode != 0:
        sys.exit(run.stderr)
    result = json.loads(run.stdout)
    worst_f = worst_z = 0.0
    worst_mac = 1.0
    found = 0
    for m, (f, z) in enumerate(MODES):
        near = [e for e in result["modes"] if abs(e["frequency_hz"] - f) < 0.001 * f]
        if not near:
            continue
        found += 1
        e = near[0]
        worst_f = max(worst_f, abs(e["frequency_hz"] - f) / f)
        worst_z = max(worst_z, abs(e["damping_ratio"] - z) / z)
        est = np.array([v["value"][0] + 1j * v["value"][1] for v in e["shape"]])
        true = np.array([phi[m, v["node"] - 1, hammer_direction(v["node"]) - 1] for v in e["shape"]])
        mac = abs(np.vdot(est, true)) ** 2 / (np.vdot(est, est).real * np.dot(true, true))
        worst_mac = min(worst_mac, mac)
    print(json.dumps({"records": len(SENSORS) * POINTS, "lines": LINES, "seconds": round(seconds, 2),
                      "method": result["method"], "modes_true": len(MODES),
                      "modes_found": len(result["modes"]), "matched": found,
                      "worst_frequency_error": worst_f, "worst_damping_error": worst_z,
                      "worst_mac": worst_mac}))


if __name__ == "__main__":
    main()
