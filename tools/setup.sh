#!/usr/bin/env bash
# Installs what frfit needs to build and test, from Debian's packages, and only what is missing.
# Safe to run again: with everything present it changes nothing. The CUDA toolkit is optional and
# looked for at /usr/local/cuda; without it the cuda backend is simply not built. Open MPI is for
# `mpirun -np N frfit fleet` and its tests (docs/fleet.md); a build without it skips both.
set -euo pipefail

packages=(build-essential cmake pkg-config libeigen3-dev libhdf5-dev libyaml-cpp-dev
          nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev chromium
          liburdfdom-dev libopenmpi-dev openmpi-bin)
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
