#include "frfit/fit/fit.h"

#include <chrono>
#include <cstdio>
#include <memory>

#include "frfit/common/warning.h"

#include "frfit/fit/fit_passes.h"
#include "frfit/fit/reduce_problem.h"

namespace frfit {

namespace {

using Clock = std::chrono::steady_clock;

// Fit on a problem that is reduced already where it needs to be.
FitResult FitAsGiven(const Problem& problem, const ParameterMap& map, const FitOptions& options,
                     const FitRunSettings& settings, Clock::time_point start) {
  const PackedProblem packed = PackForPass(problem, map, 0, {});
  BackendChoice choice;
  // The evaluator comes back with `packed` set as its problem (auto timed a call with it).
  const std::unique_ptr<Evaluator> evaluator =
      CreateFitEvaluator(settings.evaluator, packed, problem, map, options, &choice);
  if (settings.backend_chosen) settings.backend_chosen(*evaluator, choice);

  std::unique_ptr<FitRun> run;
  if (settings.resume != nullptr) {
    run = std::make_unique<FitRun>(map, options, *settings.resume);
    if (settings.resumed) settings.resumed(run->evaluations());
  } else {
    run = std::make_unique<FitRun>(map, options, settings.seed);
  }

  DriveOptions drive;
  drive.progress = settings.progress;
  if (settings.checkpoint) {
    drive.checkpoint_every_seconds = settings.checkpoint_every_seconds;
    drive.checkpoint_every_evaluations = settings.checkpoint_every_evaluations;
    drive.checkpoint = [&settings](const std::vector<nlohmann::json>& states) {
      settings.checkpoint(states.at(0));
    };
  }
  DriveFits({MakeFitJob(run.get(), map, problem)}, evaluator.get(), drive);
  return FinishFit(problem, map, *run, options, ToString(settings.evaluator.backend),
                   ToString(evaluator->backend()),
                   std::chrono::duration<double>(Clock::now() - start).count());
}

}  // namespace

FitResult Fit(const Problem& problem, const ParameterMap& map, const FitOptions& options,
              const FitRunSettings& settings) {
  const auto start = Clock::now();
  // A beam model is reduced here, on copies (the caller's problem and map stay as given), so that
  // every caller fits it on the same basis (fit/reduce_problem.h).
  if (WillReduce(options.reduction, map.source(), problem)) {
    Problem reduced = problem;
    ParameterMap reduced_map = map;
    ReduceProblem(options.reduction, map.source(), &reduced_map, &reduced);
    return FitAsGiven(reduced, reduced_map, options, settings, start);
  }
  return FitAsGiven(problem, map, options, settings, start);
}

void WarnAboutResult(const FitResult& result, const std::string& what) {
  for (const std::string& reason : result.model_check.reasons) Warn(what, "model check", reason);
  if (result.identifiability.sigma_basis == SigmaBasis::kNoiseModelScaled) {
    const Identifiability& id = result.identifiability;
    char text[200];
    std::snprintf(text, sizeof text,
                  "noise overestimated: reduced chi2 %.3g is below %.3g, its 0.1 %% quantile; 1 "
                  "sigma scaled by sqrt(reduced chi2) (docs/identifiability.md)",
                  id.reduced_chi2, ReducedChi2Floor(id.residuals - id.parameters));
    Warn(what, "identifiability", text);
  }
}

void DriveTogether(const std::vector<BatchFit>& fits, Evaluator* evaluator,
                   const DriveOptions& drive) {
  std::vector<PackedProblem> packed;
  std::vector<FitJob> jobs;
  for (const BatchFit& fit : fits) {
    packed.push_back(PackForPass(*fit.problem, *fit.map, 0, {}));
    jobs.push_back(MakeFitJob(fit.run, *fit.map, *fit.problem));
  }
  evaluator->SetProblems(std::move(packed));
  DriveFits(jobs, evaluator, drive);
}

FitResult FinishFit(const Problem& problem, const ParameterMap& map, const FitRun& run,
                    const FitOptions& options, const std::string& backend_given,
                    const std::string& backend_used, double wall_seconds) {
  FitResult result = AssembleFitResult(problem, map, run, options);
  result.backend_given = backend_given;
  result.backend_used = backend_used;
  result.wall_seconds = wall_seconds;
  result.reductions = Reductions(problem);
  return result;
}

}  // namespace frfit
