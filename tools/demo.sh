#!/usr/bin/env bash
# The main job on the bundled datasets: installs what is missing, builds the command-line tool
# (only it: the tests, benchmarks and, without a GPU, the cuda backend are not needed here),
# then identifies the elastic parameters of the paper's 3-joint example and of the KUKA KR90 model
# from their pseudo-measured inertance FRFs, printing the fitted parameters and the modal
# comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cuda=OFF
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  cuda=ON
fi
echo "demo: building build/frfit only (cuda backend $cuda); a first build takes minutes: 6 on a" \
     "busy two-core machine" >&2
start=$SECONDS
tools/build.sh -DFRFIT_WITH_CUDA=$cuda --target frfit
echo "demo: build took $((SECONDS - start)) s" >&2
mkdir -p results
for dataset in paper_3dof kuka_kr90; do
  echo
  echo "=== $dataset: build/frfit fit --model datasets/$dataset/model.yaml --frf datasets/$dataset/frf_milling_inertance.h5 --config datasets/$dataset/fit.yaml --seed 1 --out results/$dataset.h5"
  build/frfit fit --model "datasets/$dataset/model.yaml" \
    --frf "datasets/$dataset/frf_milling_inertance.h5" --config "datasets/$dataset/fit.yaml" \
    --seed 1 --out "results/$dataset.h5"
done
