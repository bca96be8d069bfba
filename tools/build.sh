#!/usr/bin/env bash
# Configures and builds frfit in ./build (Release). Arguments go to the configure step, e.g.
# tools/build.sh -DCMAKE_CUDA_ARCHITECTURES=90, except `--target NAME` (repeatable), which builds
# only those targets instead of everything (tests, benchmarks, tools).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -x /usr/local/cuda/bin/nvcc ]] && ! command -v nvcc >/dev/null; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
configure=() targets=()
while (($#)); do
  if [[ $1 == --target && $# -ge 2 ]]; then
    targets+=(--target "$2")
    shift 2
  else
    configure+=("$1")
    shift
  fi
done
# The Python module (python/, docs/python.md) is built, and tested by ctest, where python3 has
# pybind11 (tools/setup.sh installs it); FRFIT_PYTHON=OFF through the arguments turns it off.
python=()
if python3 -c "import pybind11" 2>/dev/null; then
  python=(-DFRFIT_PYTHON=ON -DPython_EXECUTABLE="$(command -v python3)"
          -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)")
fi
# The cuda backend is on unless this run says otherwise: CMake caches options, and a build
# configured without it (tools/demo.sh on a machine without a GPU) must not silently stay so.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFRFIT_WITH_CUDA=ON "${python[@]}" "${configure[@]}" >&2
cmake --build build -j "$(nproc)" "${targets[@]}" >&2
