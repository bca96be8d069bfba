#!/usr/bin/env python3
"""pyuff's reading of every dataset 55 (data at nodes) of a UFF file, as JSON: an independent reader
for the tests of `frfit export --uff` (tests/unit/campaign/campaign_ema_test.cc).

  python3 tools/read_uff55.py OUT.json FILE.uff
"""
import json
import sys

import numpy as np
import pyuff


def main(out, path):
    sets = pyuff.UFF(path).read_sets()
    result = []
    for s in sets if isinstance(sets, list) else [sets]:
        if s["type"] != 55:
            continue
        entry = {"analysis_type": int(s["analysis_type"]), "data_ch": int(s["data_ch"]),
                 "data_type": int(s["data_type"]), "mode_n": int(s.get("mode_n", 0)),
                 "node_nums": [int(n) for n in s["node_nums"]]}
        if "eig" in s:
            entry["eig"] = [float(np.real(s["eig"])), float(np.imag(s["eig"]))]
        for r in ("r1", "r2", "r3"):
            v = np.asarray(s[r], dtype=complex)
            entry[r] = [[float(x.real), float(x.imag)] for x in v]
        result.append(entry)
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: read_uff55.py OUT.json FILE.uff")
    main(sys.argv[1], sys.argv[2])
