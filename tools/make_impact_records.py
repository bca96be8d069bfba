#!/usr/bin/env python3
"""Writes the bundled impact records of the paper's 3-joint example (datasets/paper_3dof/hits_*.h5).

Simulated hammer tests at posture milling with the Table 1 parameters (params_table1.yaml): one
file per hammer direction (hits_x.h5, hits_y.h5, hits_z.h5), 5 triggered hits each, in the
time-recording layout of docs/file-formats.md ("Time recordings (HDF5)"), with the datasets and
attributes frfit's own writer (src/io/time_hdf5.cc) sets, less its version. The README's chain hits -> frfit frf -> frfit fit
-> frfit report runs on them; tests/unit/impact/bundled_records_test.cc checks them.

How a hit is made:
- sampling 102.4 Hz, 6.25 s per record (640 samples, lines every 0.16 Hz; frfit frf's default
  band ends at fs/2.56 = 40 Hz; the three modes are at 10.2, 11.2 and 22.6 Hz), the pulse 0.25 s
  in. The slowest mode decays with a time constant of 0.83 s, to 7e-4 of its start by the
  record's end: the record holds the whole response (frfit frf's decay check passes, and the
  leakage left is below the noise: with 40 hits a direction instead of 5 every parameter still
  lands within 1.2 sigma of the truth, with a sigma 10 times smaller).
- the force: a raised-cosine pulse P*(1 - cos(2*pi*t/T))/2 of T = 25 ms (a soft tip), sampled:
  three samples at this rate, 0.22, 0.98 and 0.04 of P; the sampled spectrum is 2.5 dB down at
  30 Hz, 4 dB at 40 Hz and 4.7 dB at the Nyquist line; peaks P of 180, 210, ..., 300 N. (A
  pulse of a few ms, as a steel tip gives, would need a sampling rate, and files, 10 times
  larger; for modes below 25 Hz a soft tip is what one would use.)
- the three tool-tip accelerations: the model's true inertance H(f) from `frfit simulate
  --format inertance` (the model, not this script, is the truth) on the DFT grid of the record
  zero-padded to twice its length, times the sampled force's DFT, back to time and cut to the
  record: a response from rest, without circular wrap-around (what would wrap is e^-15 of the
  start). Line 0 (0 Hz) is set to 0: an inertance is 0 there (a static force gives no
  acceleration). At the Nyquist line (51.2 Hz) only Re H can enter a real signal: Im H is
  dropped there, outside frfit frf's band.
- noise, white and Gaussian, seeded (numpy's PCG64, seed 20261101): 0.5 N on the force (0.2 %
  of a peak), 0.05 m/s^2 on each acceleration (0.5 to 2.6 % of the largest response peak of a
  direction); offsets of 0.4 N and 0.02 to 0.04 m/s^2, which frfit frf removes (the mean of the
  samples before the force window).
- hits_x.h5 hit 2 is a double hit: the hammer bounces, a second pulse of 35 % of the first
  40 ms after it; frfit frf rejects it ("double hit: ...") and averages 4 x hits, 5 y and 5 z.

Full scales are written as 0 (unknown range): no sample is clipped, and the noise keeps the
flat-top check quiet. Deterministic: the same frfit build and numpy give the same samples.
The three files hold 338 KB together (float64 samples, as the layout asks).

usage: tools/make_impact_records.py [--frfit build/frfit] [--out-dir datasets/paper_3dof]
"""
import argparse
import os
import subprocess
import tempfile

import h5py
import numpy as np

FS_HZ = 102.4
RECORD_S = 6.25
PAD = 2                        # zero-padding factor of the synthesis grid
PRETRIGGER_S = 0.25
PULSE_S = 0.025
HITS = 5
DOUBLE_HIT = (0, 2)            # (hammer axis, hit): a bounce
DOUBLE_DELAY_S, DOUBLE_FRACTION = 0.040, 0.35
FORCE_NOISE_N, ACC_NOISE_M_S2 = 0.5, 0.05
SEED = 20261101
DATASET = "datasets/paper_3dof"


def true_inertance(frfit, root, n_pad):
    """H[line][i][j] (complex, m/s^2/N) on lines k·fs/n_pad, k = 0 .. n_pad/2."""
    df = FS_HZ / n_pad
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "truth.h5")
        subprocess.run([frfit, "simulate", "--model", os.path.join(root, DATASET, "model.yaml"),
                        "--posture", "milling",
                        "--params", os.path.join(root, DATASET, "params_table1.yaml"),
                        "--band", "%r:%r:%r" % (df, FS_HZ / 2, df), "--format", "inertance",
                        "--out", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with h5py.File(out, "r") as f:
            f_hz = f["frequency_hz"][:]
            h = f["H"][..., 0] + 1j * f["H"][..., 1]
    lines = n_pad // 2
    assert len(f_hz) == lines and np.allclose(f_hz, df * np.arange(1, lines + 1)), "grid"
    full = np.zeros((lines + 1, 3, 3), complex)
    full[1:] = h
    full[-1] = full[-1].real      # Nyquist: a real signal has a real coefficient there
    return full


def raised_cosine(t, t0, amplitude):
    u = t - t0
    inside = (u > 0) & (u < PULSE_S)
    return np.where(inside, amplitude * 0.5 * (1 - np.cos(2 * np.pi * u / PULSE_S)), 0.0)


def simulate_hit(h, axis, hit, rng):
    n = int(round(RECORD_S * FS_HZ))
    t = np.arange(PAD * n) / FS_HZ
    amplitude = 180.0 + 30.0 * hit
    force = raised_cosine(t, PRETRIGGER_S, amplitude)
    if (axis, hit) == DOUBLE_HIT:
        force += raised_cosine(t, PRETRIGGER_S + DOUBLE_DELAY_S, DOUBLE_FRACTION * amplitude)
    spectrum = np.fft.rfft(force)
    acc = np.fft.irfft(h[:, :, axis].T * spectrum, PAD * n)[:, :n]   # [response axis][sample]
    force = force[:n] + FORCE_NOISE_N * rng.standard_normal(n) + 0.4
    acc = acc + ACC_NOISE_M_S2 * rng.standard_normal((3, n)) + (0.02 + 0.01 * np.arange(3))[:, None]
    return np.vstack([force[None, :], acc])


def write(path, hits, axis):
    with h5py.File(path + ".tmp", "w") as f:
        f.attrs["frfit_file"] = np.bytes_("time_recording")
        f.attrs["recording"] = np.bytes_("hits")
        f["sample_rate_hz"] = np.array([FS_HZ])
        g = f.create_group("channels")
        g["name"] = ["hammer", "acc_x", "acc_y", "acc_z"]
        g["quantity"] = ["force", "acceleration", "acceleration", "acceleration"]
        g["axis"] = np.array([axis, 0, 1, 2], dtype=np.int64)
        g["full_scale"] = np.zeros(4)
        f["samples"] = np.array(hits)                     # [hits][channels][samples], float64
    os.replace(path + ".tmp", path)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frfit", default=os.path.join(root, "build", "frfit"))
    p.add_argument("--out-dir", default=os.path.join(root, DATASET))
    a = p.parse_args()
    h = true_inertance(a.frfit, root, PAD * int(round(RECORD_S * FS_HZ)))
    rng = np.random.default_rng(SEED)
    for axis in range(3):
        hits = [simulate_hit(h, axis, k, rng) for k in range(HITS)]
        path = os.path.join(a.out_dir, "hits_%s.h5" % "xyz"[axis])
        write(path, hits, axis)
        peak = max(np.abs(x[1:] - x[1:, :10].mean(axis=1, keepdims=True)).max() for x in hits)
        print("wrote %s: %d hits, %d samples at %g Hz, largest acceleration %.3g m/s^2, %d bytes"
              % (path, len(hits), hits[0].shape[1], FS_HZ, peak, os.path.getsize(path)))


if __name__ == "__main__":
    main()
