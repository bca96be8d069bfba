// The warm start of a fleet night (docs/fleet.md, "Warm start"): what a robot's previous result
// brings (parameters, cost, identifiability report), the configuration a warm robot is fitted
// with, and the tests that decide whether a warm least-squares result is trusted or refitted with
// the cold configuration in the same run. Not here: running the fits (fleet_run.cc) and the drift
// report (fleet_drift.h).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/fit_options.h"
#include "frfit/fit/fit_run.h"
#include "frfit/results/identifiability.h"
#include "frfit/fit/parameter_map.h"
#include "frfit/fleet/fleet_manifest.h"
#include "frfit/model/model.h"

namespace frfit {

struct PreviousNight {
  std::vector<double> parameters;  // Model::parameters order
  double cost = std::numeric_limits<double>::quiet_NaN();
  // Results written before identifiability reports existed have none; their drift has no 1σ.
  bool has_identifiability = false;
  Identifiability identifiability;
};

// Reads a previous result; its parameter names must match the model's. Throws Error naming the
// file.
PreviousNight ReadPreviousNight(const std::string& path, const Model& model);

// The configuration of a robot with a previous result: `base` with the previous parameters as
// initial values (clipped to the bounds), and per `warm.method`
//   levenberg_marquardt: no GA generation, warm.starts points (the previous one first, the others
//     within ±warm.init_spread in u), Levenberg–Marquardt from each, one cycle;
//   genetic_algorithm:   warm.generations GA generations from ±warm.init_spread around it, the
//     rest as configured.
// Throws Error(source, "warm_start", …) when the result is not a valid configuration.
FitOptions WarmStartOptions(const FitOptions& base, const Model& model,
                            const std::vector<double>& previous, const FleetWarmStart& warm,
                            const std::string& source);

// The short path (docs/fleet.md, "Short path"): `warm` (WarmStartOptions' least-squares options)
// with one start, the previous point (the population's other point lies within 1e-9 of it in u,
// and the starts count it as the same), and every Levenberg–Marquardt run — the search's and each
// reweighting pass's — stopping once the Gauss–Newton step left is below warm.sigma_step of every
// parameter's 1σ (LevenbergMarquardtOptions::sigma_step); the search without the peak emphasis
// (the loader also weighs its problem at the previous result: the cost that result minimises).
inline constexpr double kShortPathSpread = 1e-9;
FitOptions ShortPathOptions(const FitOptions& warm_options, const FleetWarmStart& warm,
                            const std::string& source);

// Why a robot with a previous result takes the full search rather than the short path, "" when
// its previous result explains tonight's data: that result has an identifiability report (the 1σ
// the short path's tests need) and its model-check χ² on tonight's data (`problem`, at the
// previous point `previous_u`) is within the check's band: not beyond ReducedChi2Limit, where the
// check calls the residual more than the noise (below ReducedChi2Floor the noise model
// overestimates the noise, which the check reports without calling it a misfit).
std::string ShortPathRefusal(const Problem& problem, const ParameterMap& map,
                             const std::vector<double>& previous_u, const PreviousNight& previous);

// Why a short path's result is not kept, "" when it is (then WarmResultDistrust's tests follow):
// its model-check χ² is beyond ReducedChi2Limit (the robot says misfit), or a free parameter moved
// beyond drift.sigma times the 1σ of the change since the previous night (√2 × the previous 1σ:
// tonight's, from the same kind of data, is about the same).
std::string ShortResultDistrust(const Problem& problem, const ParameterMap& map,
                                const std::vector<double>& u, const PreviousNight& previous,
                                const FleetDrift& drift);

// A start of a warm refinement that ended above the best, but within this factor of its cost,
// found a rival minimum: the data do not decide between the two (a start further above lost).
inline constexpr double kWarmRivalCostFactor = 2.0;
// A parameter that moved to a bound by more than this many of the previous night's 1σ ran away
// (the move the drift report's default rule would call real), if that night determined it: its
// 1σ below this fraction of its value (the 10 % beyond which identifiability.h calls a direction
// weak; a damping the data barely see has a 1σ of 25 % to 100 % and more, and its linearised 1σ
// says little about how far it may wander).
inline constexpr double kWarmBoundMoveSigmas = 4.0;
inline constexpr double kWarmDeterminedStdRelative = 0.1;

// Why a finished warm least-squares run is not trusted, "" when it is: every failed test named,
// separated by "; ". The tests (docs/fleet.md, "Fallback"), none of which applies below the
// configuration's fitness tolerance δ:
//   - its best start did not converge;
//   - another start ended at a rival minimum: above the best cost (beyond the refinement's
//     agreement_tolerance) but within kWarmRivalCostFactor of it;
//   - its cost is above warm.max_cost_over_previous × the previous night's cost;
//   - its cost is above kFleetHighCostFactor × the median cost of the night's first pass;
//   - a free parameter ended at a bound (identifiability's 1 % rule) where its previous value was
//     not, although the previous night determined it (1σ below kWarmDeterminedStdRelative of
//     the value) and it moved there by more than kWarmBoundMoveSigmas of that 1σ (every parameter
//     and any move when the previous result has no identifiability report); not tested when the
//     previous fit is no baseline (its cost above warm.max_cost_over_previous × tonight's).
std::string WarmResultDistrust(const FitRun& run, const ParameterMap& map,
                               const PreviousNight& previous, double first_pass_median_cost,
                               const FleetWarmStart& warm);

}  // namespace frfit
