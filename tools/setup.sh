#!/usr/bin/env bash
# Installs what frfit needs to build and test, from Debian's packages, and only what is missing.
# Safe to run again: with everything present it changes nothing. The CUDA toolkit is optional and
# looked for at /usr/local/cuda; without it the cuda backend is simply not built. Open MPI is for
# `mpirun -np N frfit fleet` and its tests (docs/fleet.md); a build without it skips both.
set -euo pipefail

packages=(build-essential cmake pkg-config libeigen3-dev libhdf5-dev libyaml-cpp-dev
          nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev chromium
          liburdfdom-dev libopenmpi-dev openmpi-bin python3 python3-dev python3-pip)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
else
  echo "setup: all build and test packages are present" >&2
fi

if [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: CUDA toolkit found ($(/usr/local/cuda/bin/nvcc --version | tail -1)); the cuda backend will be built" >&2
else
  echo "setup: no CUDA toolkit at /usr/local/cuda; building the cpu backend only" >&2
fi

# The Python module (docs/python.md) and its tests: pybind11 to build it, NumPy, and for the tests
# pytest, SciPy, pyuff and matplotlib, from PyPI for the python3 on the PATH, only those missing.
# PIP_BREAK_SYSTEM_PACKAGES lets pip add them to Debian's own python3 (a machine's python3 may
# also be a pyenv or virtual environment's, which needs no such leave).
python_missing=()
for pair in pybind11:pybind11 numpy:numpy pytest:pytest scipy:scipy pyuff:pyuff matplotlib:matplotlib \
            scikit_build_core:scikit-build-core; do
  python3 -c "import ${pair%%:*}" 2>/dev/null || python_missing+=("${pair#*:}")
done
if ((${#python_missing[@]})); then
  echo "setup: installing Python packages ${python_missing[*]}" >&2
  PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --quiet --disable-pip-version-check \
    --root-user-action=ignore "${python_missing[@]}" >&2
else
  echo "setup: all Python packages for the module and its tests are present" >&2
fi
