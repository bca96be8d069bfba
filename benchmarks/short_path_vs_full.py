#!/usr/bin/env python3
"""How far a warm night's short path lands from the full search (docs/fleet.md, "Short path").

  benchmarks/short_path_vs_full.py SHORT_RUN_DIR FULL_RUN_DIR

Both runs: the same night-2 manifest, SHORT with the default warm start, FULL with
`warm_start: {short_path: false}`. Per robot and free parameter, |p_short - p_full| / sigma, sigma
the full run's 1 sigma (its result's /identifiability/std_absolute); printed: median, 99th
percentile and max over all, the paths taken, robots refitted cold, model-check verdicts and drift
flags that differ, and the evaluations, LM evaluations and rounds of both runs.
"""
import json
import os
import sys

import h5py
import numpy as np


def robots(run):
    return {r["name"]: r for r in json.load(open(os.path.join(run, "summary.json")))["robots"]}


def sigmas(path):
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["identifiability/names"][()]]
        return dict(zip(names, f["identifiability/std_absolute"][()]))


def flags(r):
    d = r.get("drift") or {}
    return sorted(d.get("flagged_parameters", [])), sorted(map(str, d.get("flagged_frequencies", [])))


def main(short_run, full_run):
    a, b = robots(short_run), robots(full_run)
    moves, worst = [], (0.0, "")
    paths, verdicts, drifts = {}, [], []
    for name, ra in a.items():
        rb = b[name]
        if ra["status"] != "ok" or rb["status"] != "ok":
            continue
        paths[ra.get("path", "-")] = paths.get(ra.get("path", "-"), 0) + 1
        if ra["model_check"]["verdict"] != rb["model_check"]["verdict"]:
            verdicts.append(name)
        if flags(ra) != flags(rb):
            drifts.append(name)
        s = sigmas(os.path.join(full_run, name + ".h5"))
        for p, sigma in s.items():
            if sigma > 0:
                z = abs(ra["parameters"][p] - rb["parameters"][p]) / sigma
                moves.append(z)
                if z > worst[0]:
                    worst = (z, f"{name} {p} ({ra.get('path', '-')})")
    moves = np.array(moves)
    sa = json.load(open(os.path.join(short_run, "summary.json")))
    sb = json.load(open(os.path.join(full_run, "summary.json")))
    print(f"paths: {paths}; refitted cold: short run {sa['robots_fell_back']}, full run {sb['robots_fell_back']}")
    print(f"|p_short - p_full| / sigma over {moves.size} parameters: median {np.median(moves):.3g}, "
          f"99th percentile {np.percentile(moves, 99):.3g}, max {moves.max():.3g} ({worst[1]})")
    print(f"model-check verdicts that differ: {len(verdicts)} {verdicts[:8]}; drift flags that differ: "
          f"{len(drifts)} {drifts[:8]}")
    for label, s in (("short", sa), ("full", sb)):
        ev = [r["evaluations"] for r in s["robots"] if r["status"] == "ok"]
        print(f"{label}: {s['evaluations']} evaluations (median per robot {int(np.median(ev))}), "
              f"{s['rounds']} rounds")


if __name__ == "__main__":
    main(*sys.argv[1:3])
