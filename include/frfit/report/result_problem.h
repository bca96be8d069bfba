// A fit's problem as its result file keeps it: each FRF set's prepared FRFs, weights, noise model
// and measurement points (the FRF files may be gone or changed since). What `frfit design` and
// the Python module's design rank candidates against.
#pragma once

#include <memory>

#include "frfit/cost/problem.h"
#include "frfit/fit/fit_options.h"
#include "frfit/results/fit_result.h"

namespace frfit {

// Errors name the result file and the group of a set whose posture or frames `model` lacks.
Problem ProblemFromResult(const FitResult& result, std::shared_ptr<const Model> model,
                          const FitOptions& options);

}  // namespace frfit
