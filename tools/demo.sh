#!/usr/bin/env bash
# The main job on the bundled datasets: installs what is missing, builds, then identifies the
# elastic parameters of the paper's 3-joint example and of the KUKA KR90 model from their
# pseudo-measured inertance FRFs, printing the fitted parameters and the modal comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh
mkdir -p results
for dataset in paper_3dof kuka_kr90; do
  echo
  echo "=== $dataset: build/frfit fit --model datasets/$dataset/model.yaml --frf datasets/$dataset/frf_milling_inertance.h5 --config datasets/$dataset/fit.yaml --seed 1 --out results/$dataset.h5"
  build/frfit fit --model "datasets/$dataset/model.yaml" \
    --frf "datasets/$dataset/frf_milling_inertance.h5" --config "datasets/$dataset/fit.yaml" \
    --seed 1 --out "results/$dataset.h5"
done
