#!/usr/bin/env python3
"""frfit ema against sdypy-EMA (pip install sdypy-EMA, an independent LSCF/LSFD implementation) on
the campaign of benchmarks/campaign_ema_bench.py: 222 FRFs, 1600 lines, 13 modes with a pair 0.3 %
apart, impact-test noise.

  python3 benchmarks/campaign_ema_vs_sdypy.py build/frfit [OUTDIR]

sdypy-EMA's LSCF is single-reference (a common denominator over all FRFs) and its modes are picked
from its poles by select_closest_poles given the true frequencies — a help frfit's automatic
selection does not get. Prints one JSON line per estimator: seconds, modes, worst errors.
Numbers: benchmarks/RESULTS.md ("Campaign EMA").
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import campaign_ema_bench as bench  # noqa: E402


def errors(found_f, found_z):
    worst_f = worst_z = 0.0
    matched = 0
    for f, z in bench.MODES:
        k = int(np.argmin(np.abs(np.asarray(found_f) - f)))
        if abs(found_f[k] - f) > 0.001 * f:
            continue
        matched += 1
        worst_f = max(worst_f, abs(found_f[k] - f) / f)
        worst_z = max(worst_z, abs(found_z[k] - z) / z)
    return matched, worst_f, worst_z


def main():
    frfit = os.path.abspath(sys.argv[1])
    out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/campaign_sdypy"
    path, _ = bench.write_campaign(out)
    start = time.time()
    run = subprocess.run([frfit, "ema", path, "--json", "--averages", "10"], capture_output=True, text=True)
    seconds = time.time() - start
    if run.returncode != 0:
        sys.exit(run.stderr)
    modes = json.loads(run.stdout)["modes"]
    f = [m["frequency_hz"] for m in modes]
    z = [m["damping_ratio"] for m in modes]
    matched, ef, ez = errors(f, z)
    print(json.dumps({"estimator": "frfit ema (pLSCF, automatic selection)", "seconds": round(seconds, 2),
                      "modes": len(modes), "matched": matched, "worst_frequency_error": ef,
                      "worst_damping_error": ez}))

    from sdypy import EMA
    import pyuff
    sets = pyuff.UFF(path).read_sets()
    frfs = np.array([s["data"] for s in sets if s["type"] == 58 and s["func_type"] == 4])
    freq = np.real(np.asarray([s for s in sets if s["type"] == 58][0]["x"]))
    start = time.time()
    model = EMA.Model(frf=frfs, freq=freq, lower=1.0, upper=199.0, pol_order_high=60,
                      frf_type="accelerance")
    model.get_poles(show_progress=False)
    model.select_closest_poles([m[0] for m in bench.MODES], f_window=5)
    model.get_constants(whose_poles="own")
    seconds = time.time() - start
    matched, ef, ez = errors(list(model.nat_freq), list(model.nat_xi))
    print(json.dumps({"estimator": "sdypy-EMA (LSCF order 60, closest poles to the true ones)",
                      "seconds": round(seconds, 2), "modes": len(model.nat_freq), "matched": matched,
                      "distinct": len(set(np.round(model.nat_freq, 4))),
                      "worst_frequency_error": ef, "worst_damping_error": ez}))


if __name__ == "__main__":
    main()
