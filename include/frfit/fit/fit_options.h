// FitOptions: every setting of a fit (the YAML fit configuration, docs/fit-config.md), as a plain
// value type with defaults and IsValid. Loading checks everything before any work starts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frfit/cost/modal_sets.h"
#include "frfit/cost/cost_options.h"
#include "frfit/model/model.h"
#include "frfit/optim/genetic_algorithm.h"
#include "frfit/optim/levenberg_marquardt.h"
#include "frfit/optim/nelder_mead.h"

namespace frfit {

// Where the search starts: the model's initial values, or (as in the paper's validation example)
// a random point inside the bounds drawn from the fit's seed.
enum class InitialGuess { kModel, kRandom };
std::string ToString(InitialGuess guess);
bool FromString(const std::string& text, InitialGuess* guess);

// A Gaussian prior on one free parameter (the fit configuration's `prior:` block,
// docs/fit-config.md): mean and 1σ, the σ given either absolutely (`std`) or as a fraction of
// |mean| (`std_relative`); the other is NaN. With priors the fit is a MAP estimate.
struct Prior {
  double mean = 0.0;
  double std = 0.0;
  double std_relative = 0.0;
  // The 1σ in the parameter's unit.
  double Std() const { return std == std ? std : std_relative * (mean < 0 ? -mean : mean); }
};

// Tikhonov regularisation (`regularization:`, docs/fit-config.md): ½λ Σ_j ((θ_j − c_j)/s_j)²
// added to the cost, toward the nominal (c the effective initial value, s = |c|: deviations are
// relative) or toward the prior (c the prior's mean, s its 1σ: λ = 1 is the prior itself). A
// number is the weight λ; automatic picks it on the linearised problem by the rule `choose_by`:
// the evidence (the marginal likelihood of λ) or generalised cross-validation (fit/regularization.h).
enum class RegularizationTarget { kNominal, kPrior };
std::string ToString(RegularizationTarget target);
enum class WeightRule { kEvidence, kGcv };
std::string ToString(WeightRule rule);
bool FromString(const std::string& text, WeightRule* rule);
struct RegularizationOptions {
  bool enabled = false;
  RegularizationTarget toward = RegularizationTarget::kNominal;
  bool automatic = false;
  double weight = 0.0;  // λ when not automatic
  // The rule that picks λ with `auto`, and the curve's chosen point (what the rule would pick)
  // with a given weight. A configuration without `choose_by` gets evidence with `auto` and gcv
  // with a number, the rule such a fit reported before evidence existed (docs/decisions.md).
  WeightRule choose_by = WeightRule::kEvidence;
};

struct ParameterOptions {
  std::vector<std::string> free;           // empty: every parameter not in `fixed`
  std::map<std::string, double> fixed;     // held at these values
  std::map<std::string, Bounds> bounds;    // overrides of the model's bounds and initial values
  InitialGuess initial = InitialGuess::kModel;
  std::map<std::string, Prior> priors;     // per free parameter; empty: a plain least-squares fit
  // Linear constraints between parameters, as written (fit/constraints.h); checked when parsed.
  std::vector<std::string> constraints;
  RegularizationOptions regularization;  // the fit configuration's `regularization:` block
};

// How the GA of cycles 2, 3, ... starts (paper Fig. 2 and docs/decisions.md):
//   seeded       — around the Nelder–Mead result, which is one of its individuals (the paper);
//   independent  — over the whole bounds, as a fresh global search; the best point so far is
//                  kept by the fitter, not injected, so a deep local minimum cannot capture it.
enum class RestartMode { kSeeded, kIndependent };
std::string ToString(RestartMode mode);
bool FromString(const std::string& text, RestartMode* mode);

// The local stage after each GA (docs/fit-config.md, "Refinement"):
//   levenberg_marquardt — least squares with the exact Jacobian from the best distinct GA
//                         individuals in lock-step (the default: right and fast on every bundled
//                         problem);
//   nelder_mead         — the paper's fminsearch from the GA's best point (its reproduction).
enum class Refinement { kLevenbergMarquardt, kNelderMead };
std::string ToString(Refinement refinement);
bool FromString(const std::string& text, Refinement* refinement);

// The GA ⇄ local refinement loop of the paper's Fig. 2.
struct FitterOptions {
  Refinement refinement = Refinement::kLevenbergMarquardt;
  int max_cycles = 3;                    // GA + NM cycles at most
  double fitness_tolerance = 0.0;        // δ: stop as soon as the cost is below it (0: never)
  // A cycle that lowers the best cost by less than this fraction of it does not count as
  // progress; after `stall_cycles` such cycles in a row the fit stops.
  double min_cycle_improvement = 1e-3;
  int stall_cycles = 1;
  RestartMode restart = RestartMode::kSeeded;
  // `frfit fit` with a checkpoint file writes one every --checkpoint-seconds of wall time
  // (default 60) and, when this is > 0, also after every this many evaluations (0: off).
  std::int64_t checkpoint_every_evaluations = 0;
  bool IsValid(std::string* error) const;
};

// How a fit treats postures with many elastic coordinates (beam bodies): reduced to a small basis
// (posture/reduction.h, docs/reduction.md) or solved in full.
enum class ReductionMode { kAuto, kAlways, kNever };
struct ReductionSettings {
  // auto: reduce when a posture has more elastic coordinates than the kernels hold (32); always:
  // whenever the model has beam coordinates; never: the full solve (an error past 32).
  ReductionMode mode = ReductionMode::kAuto;
  double modes_up_to_hz = 0.0;  // interior modes below this; 0: four times the highest fitted line
  int krylov_orders = 2;        // static correction orders
  // What the host computes after the fit (fitted FRFs and modes, their uncertainty, the model
  // check, the noise weights of the reweighting passes) on a reduced set: its reduced posture
  // (false, the default) or the full model (true: the exact check of those results).
  bool assess_on_full = false;
  bool is_default() const {
    return mode == ReductionMode::kAuto && modes_up_to_hz == 0.0 && krylov_orders == 2 &&
           !assess_on_full;
  }
};

struct FitOptions {
  CostOptions cost;
  ParameterOptions parameters;
  GaOptions genetic_algorithm;
  NelderMeadOptions nelder_mead;
  LevenbergMarquardtOptions levenberg_marquardt;
  FitterOptions fitter;
  std::map<std::string, double> posture_weights;  // per posture name; 1 when absent
  ReductionSettings reduction;
  // How measured modes are scored when the fit has them (`modes:`; cost/modal_sets.h).
  ModalCostOptions modes;

  bool IsValid(std::string* error) const;
};

// Reads a fit configuration (unknown keys are errors). An empty path gives the defaults.
FitOptions LoadFitOptions(const std::string& path);
FitOptions ParseFitOptionsText(const std::string& yaml_text, const std::string& source);
// The settings as YAML text, for result files and reports.
std::string FitOptionsToYaml(const FitOptions& options);

}  // namespace frfit
