#!/usr/bin/env bash
# Configures and builds frfit in ./build (Release). Extra arguments go to the configure step,
# e.g. tools/build.sh -DCMAKE_CUDA_ARCHITECTURES=90.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -x /usr/local/cuda/bin/nvcc ]] && ! command -v nvcc >/dev/null; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >&2
cmake --build build -j "$(nproc)" >&2
