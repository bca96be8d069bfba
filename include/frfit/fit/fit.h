// DriveTogether: many fit runs driven against one evaluator in shared calls (a fleet), the first
// half of a fit; the second, each finished run's FitResult, is FinishFit in results/fit_call.h,
// beside Fit, the one call from a problem to its result. This header needs nothing of results/:
// results/ includes fit/, never the reverse.
#pragma once

#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

// One run of a batch driven together.
struct BatchFit {
  FitRun* run;
  const Problem* problem;
  const ParameterMap* map;
};

// Sets each run's problem (its first pass's packing) as the evaluator's problems, in order, and
// drives every run to its end in shared evaluator calls (DriveFits).
void DriveTogether(const std::vector<BatchFit>& fits, Evaluator* evaluator,
                   const DriveOptions& drive);

}  // namespace frfit
