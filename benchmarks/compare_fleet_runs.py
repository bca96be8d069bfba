#!/usr/bin/env python3
"""Whether two `frfit fleet` run directories hold the same results, for a change that must not
alter any (RESULTS.md: "outputs identical but run ids and timings").

  benchmarks/compare_fleet_runs.py RUN_DIR_A RUN_DIR_B

.h5 files: every dataset and attribute compared, doubles by their bits; datasets and attributes
whose name says they are a time (wall, seconds) and the run id are left out. summary.json: equal
after dropping the run id, directories and every *seconds* / wall key, the run directory in
paths masked. Every other file: equal as
text once the output directory, the run id, dates and figures followed by " s" or "seconds"
are masked. Prints each difference
(the first 20) and exits 1 if there is any.
"""
import json
import os
import re
import sys

import h5py
import numpy as np

VOLATILE = re.compile(r"(seconds|wall|run_id|run_dir|directory|started|finished|date|time)", re.I)


def h5_items(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            for key, value in obj.attrs.items():
                if not VOLATILE.search(key):
                    out[f"{name}@{key}"] = np.asarray(value)
            if isinstance(obj, h5py.Dataset) and not VOLATILE.search(name.rsplit("/", 1)[-1]):
                out[name] = obj[()]
        for key, value in f.attrs.items():
            if not VOLATILE.search(key):
                out[f"/@{key}"] = np.asarray(value)
        f.visititems(visit)
    return out


def same_value(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return a.tobytes() == b.tobytes()
    return bool(np.all(a == b)) if a.size else True


def strip_json(value, run_dir):
    """The JSON without its volatile keys, the run directory in paths written as RUN_DIR."""
    if isinstance(value, dict):
        return {k: strip_json(v, run_dir) for k, v in value.items() if not VOLATILE.search(k)}
    if isinstance(value, list):
        return [strip_json(v, run_dir) for v in value]
    if isinstance(value, str):
        # A path under the run directory as given to --out: absolute, or relative to where
        # frfit ran (ending in the run id either way).
        value = value.replace(os.path.abspath(run_dir), "RUN_DIR")
        return re.sub(r"[^\s\"]*" + re.escape(os.path.basename(os.path.abspath(run_dir))) + "/",
                      "RUN_DIR/", value)
    return value


def masked_text(path, run_dir):
    text = open(path, encoding="utf-8", errors="replace").read()
    text = text.replace(os.path.dirname(os.path.abspath(run_dir)), "OUT")
    text = text.replace(os.path.basename(os.path.abspath(run_dir)), "RUN")
    text = re.sub(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d", "DATE", text)
    return re.sub(r"[0-9.]+(e[-+]?[0-9]+)?( ?s\b| seconds)", "T", text)


def main():
    a, b = sys.argv[1], sys.argv[2]
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    differences = []
    for name in names:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if not (os.path.isfile(pa) and os.path.isfile(pb)):
            differences.append(f"{name}: only in one run")
            continue
        if name.endswith(".h5"):
            ia, ib = h5_items(pa), h5_items(pb)
            for key in sorted(set(ia) | set(ib)):
                if key not in ia or key not in ib or not same_value(ia[key], ib[key]):
                    differences.append(f"{name}: {key}")
        elif name == "summary.json":
            if strip_json(json.load(open(pa)), a) != strip_json(json.load(open(pb)), b):
                differences.append(f"{name}: differs")
        elif masked_text(pa, a) != masked_text(pb, b):
            differences.append(f"{name}: differs as text")
    for d in differences[:20]:
        print(d)
    print(f"{len(names)} files compared, {len(differences)} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
