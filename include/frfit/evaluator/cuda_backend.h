// Entry points of the cuda backend, implemented under kernels/ (compiled by nvcc) and called by
// the core only when FRFIT_HAVE_CUDA is defined. Plain C++: no CUDA header leaks out of kernels/.
#pragma once

#include <memory>
#include <string>

#include "frfit/evaluator/evaluator.h"

namespace frfit {

// True when a CUDA device can be used; otherwise `reason` gets the CUDA runtime's explanation.
bool CudaDeviceUsable(std::string* reason);
std::unique_ptr<Evaluator> CreateCudaEvaluator();

}  // namespace frfit
