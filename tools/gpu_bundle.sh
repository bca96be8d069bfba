#!/usr/bin/env bash
# Packs a CUDA-enabled build for a GPU machine that has the NVIDIA driver and the CUDA 13 runtime
# libraries but none of frfit's build dependencies (Eigen, HDF5, yaml-cpp, urdfdom, GoogleTest,
# Google Benchmark): the executables, laid out as in the build folder, plus every shared library
# they load that is not part of glibc, libstdc++/libgcc or CUDA. On the GPU machine,
# benchmarks/gpu_checks.sh finds the bundle and runs from it (docs/gpu-backend.md).
#
#   tools/gpu_bundle.sh [BUILD=build] [BUNDLE=gpu-bundle]
#
# The build must have the cuda backend (the default when nvcc is at /usr/local/cuda; its code is
# sm_90 SASS for H100/H200 plus compute_80 PTX). The bundle also records the commit and the
# source folder the test binaries were compiled against (they read datasets/ from there).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
BUNDLE=${2:-gpu-bundle}

if [[ ! -f "$BUILD/libfrfit_cuda.a" ]]; then
  echo "gpu_bundle: $BUILD has no cuda backend (build with the CUDA toolkit at /usr/local/cuda)" >&2
  exit 1
fi
cmake --build "$BUILD" -j"$(nproc)" --target frfit frfit-make-fleet frfit_tests \
  gpu_evaluator_bench cpu_evaluator_bench export_random_batch >&2

rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/tests" "$BUNDLE/benchmarks" "$BUNDLE/lib"
binaries=(frfit frfit-make-fleet tests/frfit_tests benchmarks/gpu_evaluator_bench
          benchmarks/cpu_evaluator_bench benchmarks/export_random_batch)
for b in "${binaries[@]}"; do
  cp "$BUILD/$b" "$BUNDLE/$b"
  strip --strip-debug "$BUNDLE/$b"
done

# Libraries every Linux GPU machine has (glibc, the compiler runtime) or that come with its CUDA
# installation (the runtime, cuBLAS, cuSOLVER, the driver) stay out; everything else goes in.
keep_out='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.|libstdc\+\+|libgcc_s|libcuda\.|libcudart|libcublas|libcusolver|libcusparse|libnvJitLink)'
for b in "${binaries[@]}"; do
  ldd "$BUILD/$b" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  [[ $name =~ $keep_out ]] || cp -L "$path" "$BUNDLE/lib/$name"
done

git rev-parse HEAD > "$BUNDLE/COMMIT" 2>/dev/null || echo unknown > "$BUNDLE/COMMIT"
git diff --quiet HEAD 2>/dev/null || echo "(with uncommitted changes)" >> "$BUNDLE/COMMIT"
pwd > "$BUNDLE/SOURCE_DIR"
echo "gpu_bundle: $BUNDLE ($(du -sh "$BUNDLE" | cut -f1), $(ls "$BUNDLE/lib" | wc -l) libraries) from $BUILD at $(head -1 "$BUNDLE/COMMIT")" >&2
