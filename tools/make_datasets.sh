#!/usr/bin/env bash
# Regenerates the pseudo-measured FRF files of the bundled datasets from their models and
# reference parameters (paper sections 4 and 5.1: inertance, 0.2 Hz lines up to 30 Hz).
set -euo pipefail
cd "$(dirname "$0")/.."
frfit=${FRFIT:-build/frfit}
"$frfit" simulate --model datasets/paper_3dof/model.yaml --posture milling \
  --params datasets/paper_3dof/params_table1.yaml --band 0.2:30:0.2 --format inertance \
  --out datasets/paper_3dof/frf_milling_inertance.h5
"$frfit" simulate --model datasets/kuka_kr90/model.yaml --posture milling \
  --params datasets/kuka_kr90/params_from34.yaml --band 0.2:30:0.2 --format inertance \
  --out datasets/kuka_kr90/frf_milling_inertance.h5
for posture in reach folded; do
  "$frfit" simulate --model datasets/kuka_kr90/model.yaml --posture "$posture" \
    --params datasets/kuka_kr90/params_from34.yaml --band 0.2:30:0.2 --format inertance \
    --out "datasets/kuka_kr90/frf_${posture}_inertance.h5"
done
# Posture-dependent stiffness (beyond the paper): three postures to fit, a fourth to predict.
for posture in milling reach folded; do
  "$frfit" simulate --model datasets/paper_3dof_law/model.yaml --posture "$posture" \
    --params datasets/paper_3dof_law/params_truth.yaml --band 0.2:40:0.2 --format inertance \
    --out "datasets/paper_3dof_law/frf_${posture}_inertance.h5"
done
# Synthetic six-axis 18-DOF robot (not a real robot's data): two postures over 0.2-40 Hz, which
# holds each posture's four lowest modes (the fifth lies above 45 Hz).
for posture in milling reach; do
  "$frfit" simulate --model datasets/six_axis_18dof/model.yaml --posture "$posture" \
    --params datasets/six_axis_18dof/params_truth.yaml --band 0.2:40:0.2 --format inertance \
    --out "datasets/six_axis_18dof/frf_${posture}_inertance.h5"
done
# A steel arm on an elastic joint, a beam body (docs/model-format.md): its tip inertance over
# 1-400 Hz (five bending modes) every 0.25 Hz, which resolves the first mode's 0.27 Hz half-power
# width.
"$frfit" simulate --model datasets/flexible_arm/model.yaml --posture straight \
  --params datasets/flexible_arm/params_truth.yaml --band 1:400:0.25 --format inertance \
  --out datasets/flexible_arm/frf_straight_inertance.h5
# A Delta robot, a closed chain (docs/model-format.md, "Closed chains"): the platform's inertance
# at its two configurations over 2-40 Hz every 0.05 Hz (its three modes lie at 11-15 Hz).
for posture in C1 C2; do
  "$frfit" simulate --model datasets/delta/model.yaml --posture "$posture" \
    --params datasets/delta/params_truth.yaml --band 2:40:0.05 --format inertance \
    --out "datasets/delta/frf_${posture}_inertance.h5"
done
# Structures on a free base (six spring-less coordinates): a free-free steel bar and a T-shaped
# frame of two beams (a tree), their end's inertance every 1 Hz.
"$frfit" simulate --model datasets/free_free_beam/model.yaml --posture hung \
  --params datasets/free_free_beam/params_truth.yaml --band 10:1000:1 --format inertance \
  --out datasets/free_free_beam/frf_hung_inertance.h5
"$frfit" simulate --model datasets/beam_frame/model.yaml --posture hung \
  --params datasets/beam_frame/params_truth.yaml --band 50:1000:1 --format inertance \
  --out datasets/beam_frame/frf_hung_inertance.h5
# Static deflection tests of the KUKA robot (docs/static-tests.md): 1 kN along x, y, z at the tool
# tip at its three postures, 1 µm noise (numpy, h5py).
python3 tools/make_static_tests.py --frfit "$frfit" --model datasets/kuka_kr90/model.yaml \
  --params datasets/kuka_kr90/params_from34.yaml --postures milling,reach,folded --std 1e-6 --seed 1 \
  --description "1 kN along x, y, z at the tool tip at three postures, 1 µm; tools/make_static_tests.py --seed 1 from params_from34.yaml" \
  --out datasets/kuka_kr90/static_tests.yaml
