// Fit: one library call from a problem to its FitResult — the evaluator chosen, the run (the
// paper's Fig. 2 loop and its refinement passes) driven to its end, the result assessed — so that
// `frfit fit`, the Python module and the fleet compose a fit the same way and give the same bits
// (Ceres' Solve(options, problem, &summary) is the model). What to fit is the Problem, which
// parameters and how they are searched the ParameterMap and FitOptions; how to run it (seed,
// backend, progress, checkpoints) is FitRunSettings. Callers parse and print; nothing here prints.
//
// It lives in results/ because it ends in the result's assessment: results/ includes fit/ (the
// loop that produces a result), never the reverse. A fleet drives many runs together with
// fit/fit.h's DriveTogether and turns each into its result with FinishFit (here): the two halves
// of Fit, so that it too assembles no fit by hand.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/evaluator/evaluator.h"
#include "frfit/fit/fit_backend.h"
#include "frfit/fit/fit_driver.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/fit_run.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/results/fit_result.h"

namespace frfit {

struct FitRunSettings {
  std::uint64_t seed = 1;
  // Backend (auto by default: fit/fit_backend.h decides by timing one call) and cpu threads. The
  // result's backend_given is ToString(evaluator.backend).
  EvaluatorOptions evaluator;
  // Called once the evaluator is chosen, before the first evaluation: which one and why.
  std::function<void(const Evaluator&, const BackendChoice&)> backend_chosen;
  // Called after every GA generation and refinement iteration (fit/fit_driver.h).
  std::function<void(const ProgressEvent&)> progress;
  // Checkpoints: `checkpoint` receives the run's state (FitRun::SaveState) every
  // checkpoint_every_seconds of wall time or checkpoint_every_evaluations evaluations (each off at
  // 0); such a state given back as `resume` continues the run where it was saved, to the same bits.
  double checkpoint_every_seconds = 0.0;
  std::int64_t checkpoint_every_evaluations = 0;
  std::function<void(const nlohmann::json& state)> checkpoint;
  const nlohmann::json* resume = nullptr;  // not owned; must outlive the call
  // Called when the run continues from `resume`, with the evaluations it had already done.
  std::function<void(std::int64_t evaluations)> resumed;
};

// Fits `problem`'s free parameters (`map`) under `options`, run as `settings` say. Throws Error on
// a state that does not belong to this fit; wall_seconds counts from the call.
FitResult Fit(const Problem& problem, const ParameterMap& map, const FitOptions& options,
              const FitRunSettings& settings);

// What a user of the result must be told, as `warning:` lines (common/warning.h) from `what`:
// each reason the model check found, and 1σ scaled because the noise model overestimates the
// noise. The CLI and the Python module both say them, the same way.
void WarnAboutResult(const FitResult& result, const std::string& what);

// The finished run's result (AssembleFitResult) with how it was run: the backend asked for and
// the one used, and its wall time.
FitResult FinishFit(const Problem& problem, const ParameterMap& map, const FitRun& run,
                    const FitOptions& options, const std::string& backend_given,
                    const std::string& backend_used, double wall_seconds);

}  // namespace frfit
