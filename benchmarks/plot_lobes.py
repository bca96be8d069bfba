#!/usr/bin/env python3
"""Draws the stability envelope(s) of `frfit lobes --json` outputs (and their 5..95 % band when
present) as one SVG: python3 benchmarks/plot_lobes.py OUT.svg A.json [B.json ...]. Needs matplotlib."""
import json
import sys

import matplotlib
matplotlib.use("Agg")
matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: a smaller file
import matplotlib.pyplot as plt  # noqa: E402

out, inputs = sys.argv[1], sys.argv[2:]
fig, ax = plt.subplots(figsize=(8, 4.2))
for path in inputs:
    j = json.load(open(path))
    step = max(1, len(j["spindle_speed_rpm"]) // 1000)  # every step-th speed keeps the file small
    n = j["spindle_speed_rpm"][::step]
    mm = lambda values: [float("nan") if v is None else 1e3 * v for v in values[::step]]  # noqa: E731
    line, = ax.plot(n, mm(j["depth_limit_m"]), lw=1.2,
                    label="%s: critical %.3g mm" % (j["posture"], 1e3 * j["critical_depth_m"]))
    if j.get("samples", 0) > 0:
        ax.fill_between(n, mm(j["depth_limit_m_p05"]), mm(j["depth_limit_m_p95"]),
                        color=line.get_color(), alpha=0.25, lw=0)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("spindle speed [rpm]")
ax.set_ylabel("axial depth limit [mm]")
first = json.load(open(inputs[0]))
ax.set_title("frfit lobes: %s, %s" % (first["model"], first["cut"].split("/")[-1]))
ax.grid(True, which="both", lw=0.3)
ax.legend()
fig.tight_layout()
fig.savefig(out)
