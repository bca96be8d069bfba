#!/usr/bin/env python3
"""Writes a synthetic roving-sensor campaign as UFF files with pyuff (an independent writer), and
what pyuff reads back from them, for the campaign reader's tests (tests/unit/campaign).

  python3 tools/make_campaign_uff.py OUTDIR
  python3 tools/make_campaign_uff.py --read OUT.json FILE...   pyuff's reading of any UFF files

OUTDIR/campaign.uff    58 ASCII: FRFs and coherences of 10 nodes x 3 directions against reference 1+Z
OUTDIR/campaign_b.uff  58b binary: the same against reference 5-Y (a negative direction)
OUTDIR/geometry.uff    15 (nodes 1..10) and 82 (two trace lines)
OUTDIR/reference.json  pyuff's reading of the two FRF files: one entry per dataset 58
OUTDIR/bad_*.uff       one defect each: node without coordinates, mixed units, another frequency
                       axis, a coherence without its FRF
"""
import json
import os
import sys

import numpy as np
import pyuff

LINES = 200
FREQ = 1.0 + 1.0 * np.arange(LINES)  # 1..200 Hz
NODES = list(range(1, 11))
REFERENCES = [(1, 3), (5, -2)]


def frf(node, direction, ref, scale=1.0):
    """A sum of three modes with shapes that vary over node and direction (inertance, m/s^2/N)."""
    w = 2 * np.pi * FREQ
    h = np.zeros(LINES, complex)
    for m, (f, z) in enumerate([(35.0, 0.02), (92.0, 0.015), (151.0, 0.01)]):
        wm = 2 * np.pi * f
        phi = np.sin((m + 1) * node * 0.3 + abs(direction)) * np.sign(direction)
        phi_ref = np.sin((m + 1) * ref[0] * 0.3 + abs(ref[1])) * np.sign(ref[1])
        h += phi * phi_ref * (-w**2) / (wm**2 - w**2 + 2j * z * wm * w)
    return scale * h


def coherence(node, direction, ref):
    return 0.5 + 0.49 * np.cos(FREQ / (7.0 + node + abs(direction) + ref[0])) ** 2


def frf_set(node, direction, ref, binary, x=None, ordinate=(12, "m/s^2")):
    x = FREQ if x is None else x
    return pyuff.prepare_58(
        binary=binary, id1="campaign FRF", id2="NONE", id3="NONE", id4="NONE", id5="NONE",
        func_type=4, rsp_node=node, rsp_dir=direction, ref_node=ref[0], ref_dir=ref[1],
        ord_data_type=6, num_pts=len(x), abscissa_spacing=1, abscissa_min=x[0],
        abscissa_inc=x[1] - x[0], abscissa_spec_data_type=18, abscissa_axis_units_lab="Hz",
        ordinate_spec_data_type=ordinate[0], ordinate_axis_units_lab=ordinate[1],
        orddenom_spec_data_type=13, orddenom_axis_units_lab="N",
        data=frf(node, direction, ref)[: len(x)], x=x)


def coherence_set(node, direction, ref, binary):
    return pyuff.prepare_58(
        binary=binary, id1="campaign coherence", id2="NONE", id3="NONE", id4="NONE", id5="NONE",
        func_type=6, rsp_node=node, rsp_dir=direction, ref_node=ref[0], ref_dir=ref[1],
        ord_data_type=4, num_pts=LINES, abscissa_spacing=1, abscissa_min=FREQ[0],
        abscissa_inc=FREQ[1] - FREQ[0], abscissa_spec_data_type=18, abscissa_axis_units_lab="Hz",
        ordinate_spec_data_type=0, ordinate_axis_units_lab="NONE",
        orddenom_spec_data_type=0, orddenom_axis_units_lab="NONE",
        data=coherence(node, direction, ref), x=FREQ)


def write(path, sets):
    if os.path.exists(path):
        os.remove(path)
    pyuff.UFF(path).write_sets(sets, mode="add")


def geometry():
    nodes = pyuff.prepare_15(
        node_nums=NODES, def_cs=[0] * 10, disp_cs=[0] * 10, color=[1] * 10,
        x=[0.1 * n for n in NODES], y=[0.02 * n * n for n in NODES], z=[1.0 - 0.05 * n for n in NODES])
    trace1 = pyuff.prepare_82(trace_num=1, n_nodes=6, color=2, id="upper chord",
                              nodes=np.array([1, 2, 3, 4, 5, 1]))
    trace2 = pyuff.prepare_82(trace_num=2, n_nodes=7, color=3, id="lower chord",
                              nodes=np.array([6, 7, 8, 0, 9, 10, 6]))
    return [nodes, trace1, trace2]


def campaign_sets(ref, binary):
    sets = []
    for n in NODES:
        for d in (1, 2, 3):
            sets.append(frf_set(n, d, ref, binary))
    for n in NODES:
        for d in (1, 2, 3):
            sets.append(coherence_set(n, d, ref, binary))
    return sets


def reference(paths):
    """pyuff's reading of every dataset 58 of the files, in file order."""
    out = []
    for path in paths:
        sets = pyuff.UFF(path).read_sets()
        for s in sets if isinstance(sets, list) else [sets]:
            if s["type"] != 58:
                continue
            y = np.asarray(s["data"], dtype=complex)
            out.append({"file": os.path.basename(path), "func_type": int(s["func_type"]),
                        "rsp_node": int(s["rsp_node"]), "rsp_dir": int(s["rsp_dir"]),
                        "ref_node": int(s["ref_node"]), "ref_dir": int(s["ref_dir"]),
                        "x": [float(v) for v in s["x"]],
                        "re": [float(v) for v in np.real(y)], "im": [float(v) for v in np.imag(y)]})
    return out


def main(out):
    os.makedirs(out, exist_ok=True)
    p = lambda name: os.path.join(out, name)
    write(p("campaign.uff"), campaign_sets(REFERENCES[0], 0))
    write(p("campaign_b.uff"), campaign_sets(REFERENCES[1], 1))
    write(p("geometry.uff"), geometry())
    ref = REFERENCES[0]
    # Record 3 answers at node 11, which geometry.uff gives no coordinates.
    write(p("bad_no_coordinates.uff"), [frf_set(1, 1, ref, 0), frf_set(2, 1, ref, 0), frf_set(11, 1, ref, 0)])
    # Record 2 is a mobility (m/s over N) among inertances.
    write(p("bad_mixed_units.uff"), [frf_set(1, 1, ref, 0), frf_set(2, 1, ref, 0, ordinate=(11, "m/s")),
                                     frf_set(3, 1, ref, 0)])
    # Record 3 is sampled every 0.5 Hz, the others every 1 Hz.
    write(p("bad_axes.uff"), [frf_set(1, 1, ref, 0), frf_set(2, 1, ref, 0),
                              frf_set(3, 1, ref, 0, x=1.0 + 0.5 * np.arange(LINES))])
    # Record 3 is the coherence of 4+X, which has no FRF.
    write(p("bad_coherence.uff"), [frf_set(1, 1, ref, 0), frf_set(2, 1, ref, 0), coherence_set(4, 1, ref, 0)])
    with open(p("reference.json"), "w") as f:
        json.dump(reference([p("campaign.uff"), p("campaign_b.uff")]), f)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--read":
        with open(sys.argv[2], "w") as f:
            json.dump(reference(sys.argv[3:]), f)
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        sys.exit("usage: make_campaign_uff.py OUTDIR | --read OUT.json FILE...")
