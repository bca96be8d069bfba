// Entry points of the cuda backend, implemented under kernels/ (compiled by nvcc) and called by
// the core only when FRFIT_HAVE_CUDA is defined. Plain C++: no CUDA header leaks out of kernels/.
#pragma once

#include <memory>
#include <string>

#include "frfit/evaluator/evaluator.h"

namespace frfit {

// True when a CUDA device can be used; otherwise `reason` gets the CUDA runtime's explanation.
bool CudaDeviceUsable(std::string* reason);

// The deterministic tier. lanes_per_line: how many GPU threads share one frequency line —
// 1 (scratch in local memory), 4, 8, 16 or 32 (a tile, scratch in shared memory), or 0 for
// DefaultLanesPerLine of each problem's size. Every choice gives the cpu backend's bits; it
// changes only the speed. device: as EvaluatorOptions::cuda_device. Throws Error for any other
// value or without a usable GPU.
std::unique_ptr<Evaluator> CreateCudaEvaluator(int lanes_per_line = 0, int device = -1);

// Lanes per line the deterministic tier uses for n DOFs when not told: one thread for n <= 4,
// a tile of 8 up to 12, of 16 up to 24, of 32 beyond. Chosen from the operation counts
// (docs/gpu-backend.md); the GPU benchmark measures every choice.
int DefaultLanesPerLine(int n);

}  // namespace frfit
