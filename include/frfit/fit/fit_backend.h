// Which evaluator one `frfit fit` runs on when the backend is auto. A single fit of a small robot
// is over before a GPU pays for itself: creating the CUDA context costs about 0.3 s on an H100
// (benchmarks/RESULTS.md, "Whole fits and fleets"), more than the whole cpu fit of the paper's
// 3-DOF robot (0.05 s). So auto times one call of the fit's own size on the cpu backend first and
// takes the GPU only where the fit's calls would outlast the context (docs/decisions.md,
// "backend auto for one fit").
#pragma once

#include <memory>
#include <string>

#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

struct Problem;

// What a single fit's auto choice saw.
struct BackendChoice {
  double cpu_call_seconds = 0.0;  // one call of `population` individuals on the cpu backend
  bool timed = false;             // false: the backend was given, nothing was timed
  std::string reason;             // why this backend, in words (for the fit's log line)
};

// A cpu call this long or longer makes auto take a usable GPU for one fit: a fit makes tens of
// such calls at least (a GA generation, a least-squares step), so from here on they add up to more
// than the context costs.
constexpr double kGpuWorthCallSeconds = 0.01;

// The evaluator for one fit of `problem` (already packed into `packed`), with `packed` set as its
// problem: what `options` ask for, except that kAuto decides by timing one call of the GA
// population's size (the fit's largest regular call) at the initial parameters on the cpu backend
// (which, when it stays, keeps the problem it was timed with).
std::unique_ptr<Evaluator> CreateFitEvaluator(const EvaluatorOptions& options,
                                              const PackedProblem& packed, const Problem& problem,
                                              const ParameterMap& map, const FitOptions& fit,
                                              BackendChoice* choice);

}  // namespace frfit
