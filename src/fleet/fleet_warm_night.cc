#include "src/fleet/fleet_warm_night.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "frfit/common/error.h"
#include "frfit/results/fit_result.h"
#include "frfit/results/model_check.h"
#include "frfit/fleet/fleet_run.h"

namespace frfit {

// One read of the file: its summary holds the parameters, the cost and the identifiability
// report. (Three reads before, each opening the file, under the HDF5 lock that a night's loading
// takes one robot at a time.)
PreviousNight ReadPreviousNight(const std::string& path, const Model& model) {
  FitResult summary = ReadFitResult(path, FitResultSections::kSummary);
  PreviousNight night;
  night.parameters = ParametersFromResult(summary, model, path);
  night.cost = summary.cost;
  night.identifiability = std::move(summary.identifiability);
  night.has_identifiability = !night.identifiability.per_parameter.empty();
  return night;
}

FitOptions WarmStartOptions(const FitOptions& base, const Model& model,
                            const std::vector<double>& previous, const FleetWarmStart& warm,
                            const std::string& source) {
  FitOptions o = base;
  const ParameterMap plain(model, base.parameters, source);  // effective bounds
  for (int index : plain.free_indices()) {
    const Bounds& b = plain.bounds()[index];
    const std::string& name = model.parameters[index].name;
    auto it = o.parameters.bounds.find(name);
    if (it == o.parameters.bounds.end())
      it =
          o.parameters.bounds.emplace(name, Bounds{std::nan(""), std::nan(""), std::nan("")}).first;
    it->second.initial = std::min(std::max(previous[index], b.min), b.max);
  }
  o.parameters.initial = InitialGuess::kModel;
  o.genetic_algorithm.init_spread = warm.init_spread;
  o.genetic_algorithm.init_mode = GaInitMode::kAroundGuess;
  if (warm.method == WarmStartMethod::kGeneticAlgorithm) {
    o.genetic_algorithm.generations = warm.generations;
  } else {
    // The GA only draws the starts: its initial population is the previous point and
    // starts − 1 points around it (a population needs two), and the refinement takes them all.
    o.genetic_algorithm.generations = 0;
    o.genetic_algorithm.population_size = std::max(2, warm.starts);
    o.genetic_algorithm.elite_count = -1;
    o.fitter.refinement = Refinement::kLevenbergMarquardt;
    o.levenberg_marquardt.starts = warm.starts;
    // Starts closer than start_separation count as one; the drawn ones must stay distinct.
    o.levenberg_marquardt.start_separation =
        std::min(o.levenberg_marquardt.start_separation, warm.init_spread / 2);
    // One cycle: a refinement that does not settle is refitted cold, not searched around.
    o.fitter.max_cycles = 1;
  }
  std::string error;
  if (!o.IsValid(&error)) throw Error(source, "warm_start", error);
  return o;
}

FitOptions ShortPathOptions(const FitOptions& warm_options, const FleetWarmStart& warm,
                            const std::string& source) {
  FitOptions o = warm_options;
  o.genetic_algorithm.population_size = 2;
  o.genetic_algorithm.init_spread = kShortPathSpread;
  o.levenberg_marquardt.starts = 1;
  o.levenberg_marquardt.sigma_step = warm.sigma_step;
  // The search on the passes' own cost: the previous result is the minimum of plain noise
  // weights (its night's last pass), not of the search's peak emphasis, whose minimum lies
  // elsewhere along the flat damping directions — a search under it walked there and the passes
  // walked back, most of a short path's iterations (docs/decisions.md, "Which cost the short
  // search runs on").
  o.cost.weights.search_peak_gain = 1.0;
  std::string error;
  if (!o.IsValid(&error)) throw Error(source, "warm_start", error);
  return o;
}

std::string ShortPathRefusal(const Problem& problem, const ParameterMap& map,
                             const std::vector<double>& previous_u, const PreviousNight& previous) {
  if (!previous.has_identifiability)
    return "the previous result has no identifiability report (no 1 sigma to stop by)";
  const Chi2Test chi2 = ModelCheckChi2(problem, map, previous_u);
  if (!std::isfinite(chi2.reduced_chi2)) return "tonight's data have no noise model to test by";
  // The check's χ² test: beyond ReducedChi2Limit the residual holds more than the noise. (Below
  // ReducedChi2Floor the noise model overestimates the noise: no misfit, the data are explained.)
  const double limit = ReducedChi2Limit(chi2.degrees_of_freedom);
  if (chi2.reduced_chi2 <= limit) return "";
  char buffer[200];
  std::snprintf(buffer, sizeof buffer,
                "the previous result does not explain tonight's data: reduced chi2 %.4g, beyond "
                "the model check's %.4g",
                chi2.reduced_chi2, limit);
  return buffer;
}

std::string ShortResultDistrust(const Problem& problem, const ParameterMap& map,
                                const std::vector<double>& u, const PreviousNight& previous,
                                const FleetDrift& drift) {
  std::vector<std::string> reasons;
  char buffer[200];
  const Chi2Test chi2 = ModelCheckChi2(problem, map, u);
  if (!(chi2.reduced_chi2 <= ReducedChi2Limit(chi2.degrees_of_freedom))) {
    std::snprintf(buffer, sizeof buffer,
                  "the short path's result says misfit (reduced chi2 %.4g beyond %.4g)",
                  chi2.reduced_chi2, ReducedChi2Limit(chi2.degrees_of_freedom));
    reasons.push_back(buffer);
  }
  const std::vector<double> now = map.Physical(u);
  for (int index : map.free_indices()) {
    const std::string& name = map.model().parameters[index].name;
    for (const ParameterIdentifiability& p : previous.identifiability.per_parameter) {
      if (p.name != name || !(p.std_absolute > 0.0)) continue;
      const double z =
          (now[index] - previous.parameters[index]) / (std::sqrt(2.0) * p.std_absolute);
      if (!(std::fabs(z) <= drift.sigma)) {
        std::snprintf(buffer, sizeof buffer, "%s moved %.3g sigma since the previous night",
                      name.c_str(), z);
        reasons.push_back(buffer);
      }
    }
  }
  std::string text;
  for (const std::string& r : reasons) text += (text.empty() ? "" : "; ") + r;
  return text;
}

std::string WarmResultDistrust(const FitRun& run, const ParameterMap& map,
                               const PreviousNight& previous, double first_pass_median_cost,
                               const FleetWarmStart& warm) {
  // Below the configuration's δ a fit is done.
  if (run.termination() == FitTermination::kCostBelowTolerance) return "";
  std::vector<std::string> reasons;
  const double cost = run.best_cost();
  char buffer[200];
  LmTermination how = LmTermination::kNotDone;
  if (!FromString(run.lm_termination(), &how) || !IsConverged(how))
    reasons.push_back("its best start did not converge (stopped by " +
                      (run.lm_termination().empty() ? std::string("-") : run.lm_termination()) +
                      ")");
  // Starts that end far above the best lost to it; one that ends at another minimum almost as
  // good means the data do not decide between the two.
  // (Under the search's weights, as the starts' costs are.)
  int rivals = 0;
  const double tolerance = run.options().levenberg_marquardt.agreement_tolerance;
  const double searched = run.search_best_cost();
  for (double c : run.lm_start_costs())
    if (c > searched * (1.0 + tolerance) && c <= kWarmRivalCostFactor * searched) ++rivals;
  if (rivals > 0) {
    std::snprintf(buffer, sizeof buffer,
                  "%d of its %zu starts ended at another minimum within %gx of the best cost",
                  rivals, run.lm_start_costs().size(), kWarmRivalCostFactor);
    reasons.push_back(buffer);
  }
  if (std::isfinite(previous.cost) && previous.cost > 0.0 &&
      !(cost <= warm.max_cost_over_previous * previous.cost)) {
    std::snprintf(buffer, sizeof buffer, "cost %.4g is %.3g x the previous night's %.4g", cost,
                  cost / previous.cost, previous.cost);
    reasons.push_back(buffer);
  }
  if (first_pass_median_cost > 0.0 && !(cost <= kFleetHighCostFactor * first_pass_median_cost)) {
    std::snprintf(buffer, sizeof buffer, "cost %.4g is %.3g x the fleet's median", cost,
                  cost / first_pass_median_cost);
    reasons.push_back(buffer);
  }
  // A parameter the data barely see wanders to a bound without harm, one next to a bound crosses
  // into its 1 % now and then, and after a previous fit far worse than tonight's (no baseline)
  // every move is a repair; a parameter the previous night determined that moved to a bound far
  // beyond its 1σ ran away.
  const bool baseline = !(previous.cost > warm.max_cost_over_previous * cost);
  const std::vector<double> now = map.Physical(run.best_u());
  for (int j = 0; j < map.dim() && baseline; ++j) {
    const int index = map.free_indices()[j];
    const std::string& name = map.model().parameters[index].name;
    const ParameterBounds& b = map.space().bounds(j);
    const BoundFlag flag = BoundFlagAt(b, now[index]);
    if (flag == BoundFlag::kNone || BoundFlagAt(b, previous.parameters[index]) == flag) continue;
    const double move = std::fabs(now[index] - previous.parameters[index]);
    bool ran_away = !previous.has_identifiability;
    for (const ParameterIdentifiability& p : previous.identifiability.per_parameter)
      if (p.name == name)
        ran_away = p.std_relative < kWarmDeterminedStdRelative &&
                   !(move <= kWarmBoundMoveSigmas * p.std_absolute);
    if (ran_away)
      reasons.push_back(name + " moved to its " + ToString(flag) + " bound, beyond " +
                        FormatDouble(kWarmBoundMoveSigmas) + " sigma of the previous night");
  }
  std::string text;
  for (const std::string& r : reasons) text += (text.empty() ? "" : "; ") + r;
  return text;
}

}  // namespace frfit
