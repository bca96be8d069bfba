// Opt-in second cuda tier: the per-line solves go through cuBLAS batched LU
// (cublasZgetrfBatched + cublasZgetrsBatched); assembly of Z and the projection/comparison run in
// this project's own kernels, the reduction is the deterministic tier's. cuBLAS fixes neither the
// operation order nor the pivot rule of kernels/line_cost.h, so its costs agree with the cpu and
// deterministic cuda backends only to rounding (tests: relative 1e-10), never with ==. It is
// never picked by CreateEvaluator: callers (benchmarks, tests) ask for it by name.
//
// Plain C++ header: no CUDA types.
#pragma once

#include <memory>

#include "frfit/evaluator/evaluator.h"

namespace frfit {

// Throws frfit::Error when no usable GPU is present (same reason as CudaDeviceUsable).
std::unique_ptr<Evaluator> CreateCudaBatchedEvaluator();

}  // namespace frfit
