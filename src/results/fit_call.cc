#include "frfit/results/fit_call.h"

#include <chrono>
#include <cstdio>
#include <memory>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"
#include "frfit/fit/fit_passes.h"
#include "frfit/fit/reduce_problem.h"
#include "frfit/fit/regularization.h"

namespace frfit {
namespace {

using Clock = std::chrono::steady_clock;

FitResult FitOnce(const Problem& problem, const ParameterMap& map, const FitOptions& options,
                  const FitRunSettings& settings) {
  const auto start = Clock::now();
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

// A fit with a `regularization:` block (fit/regularization.h). A given weight is already the
// map's priors: one fit, then the curve at its end. With `auto` the weight is chosen by the rule
// `choose_by` (the evidence or GCV) on the cost linearised at the initial point, fitted, chosen
// again at the fit's end, and refitted from there (the search's GA reduced to its initial
// population around that point) until the choice stays within half a grid step or
// kMaxRegularizedFits fits are made.
FitResult FitRegularized(const Problem& problem, const ParameterMap& map,
                         const FitOptions& options, const FitRunSettings& settings) {
  const RegularizationOptions& g = options.parameters.regularization;
  if (g.automatic && settings.resume != nullptr)
    throw Error("frfit fit", "--resume",
                "expected a fit without regularization.weight auto (its refits are not resumable)");
  ParameterMap working = map;
  RegularizationSummary summary;
  summary.enabled = true;
  summary.toward = g.toward;
  summary.automatic = g.automatic;
  double weight = g.weight;
  if (g.automatic) {
    const WeightCurve first = ScanWeights(LinearizeCost(problem, map, options, map.InitialU()), g.choose_by);
    weight = first.points[first.chosen].weight;
  }
  FitOptions refit = options;
  refit.genetic_algorithm.generations = 0;
  refit.parameters.initial = InitialGuess::kModel;  // where the previous fit ended (SetInitial)
  FitRunSettings refit_settings = settings;
  refit_settings.checkpoint = nullptr;
  FitResult result;
  std::vector<double> initial;
  std::int64_t evaluations = 0;
  double seconds = 0.0;
  for (;;) {
    working.SetPriors(working.RegularizationPriors(weight));
    result = FitOnce(problem, working, summary.fits == 0 ? options : refit,
                     summary.fits == 0 ? settings : refit_settings);
    if (summary.fits++ == 0) initial = result.initial_parameters;
    evaluations += result.evaluations, seconds += result.wall_seconds;
    const std::vector<double> u = working.ToU(result.parameters);
    const LinearizedCost linear = LinearizeCost(problem, working, options, u);
    summary.curve = ScanWeights(linear, g.choose_by);
    summary.at_weight = EvaluateWeight(linear, weight);
    const double next = summary.curve.points[summary.curve.chosen].weight;
    if (!g.automatic || summary.fits >= kMaxRegularizedFits ||
        std::abs(std::log10(next / weight)) < 0.5 / kWeightsPerDecade)
      break;
    weight = next;
    working.SetInitial(u);
  }
  summary.weight = weight;
  result.regularization = summary;
  result.initial_parameters = initial;
  result.evaluations = evaluations;
  result.wall_seconds = seconds;
  result.settings_yaml = FitOptionsToYaml(options);  // as configured, not the refits'
  return result;
}


// Fit on a problem that is reduced already where it needs to be.
FitResult FitAsGiven(const Problem& problem, const ParameterMap& map, const FitOptions& options,
                     const FitRunSettings& settings) {
  if (!options.parameters.regularization.enabled) return FitOnce(problem, map, options, settings);
  return FitRegularized(problem, map, options, settings);
}

}  // namespace

FitResult Fit(const Problem& problem, const ParameterMap& map, const FitOptions& options,
              const FitRunSettings& settings) {
  // A beam model is reduced here, on copies (the caller's problem and map stay as given), so that
  // every caller fits it on the same basis (fit/reduce_problem.h); its wall time counts the
  // reduction.
  if (!WillReduce(options.reduction, map.source(), problem))
    return FitAsGiven(problem, map, options, settings);
  const auto start = Clock::now();
  Problem reduced = problem;
  ParameterMap reduced_map = map;
  ReduceProblem(options.reduction, map.source(), &reduced_map, &reduced);
  FitResult result = FitAsGiven(reduced, reduced_map, options, settings);
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
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
