// Stability lobes of the identified robot at one posture (docs/lobes.md): the tool-tip receptance
// in the cutting plane from the linearised model, on a frequency grid that resolves every mode,
// and the spread of the lobes the fit's covariance implies. The method itself is
// predict/stability_lobes.h; this file only feeds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "frfit/results/identifiability.h"
#include "frfit/modal/modal.h"
#include "frfit/model/model.h"
#include "frfit/posture/posture.h"
#include "frfit/predict/cut_config.h"
#include "frfit/predict/stability_lobes.h"

namespace frfit {

// Lines that resolve each mode's half-power bandwidth 2ζf: for every mode f(1 + ζu) for
// u = −20..20 in steps of 0.05 (40 lines per bandwidth, ±10 bandwidths), on top of a log-spaced
// grid of 400 lines per decade from half the lowest to twice the highest mode (at least 1..1000 Hz
// without modes); sorted, lines closer than 1e-9 relative merged.
std::vector<double> LobeFrequencyGrid(const std::vector<Mode>& modes);

// The receptance of the sensor (the tool tip) at `posture` with `coefficients`, entries
// (feed, normal) of the sensor frame, on LobeFrequencyGrid of its modes.
CuttingPlaneFrf ToolTipFrf(const Posture& posture, const JointCoefficients& coefficients,
                           const CutConfig& cut);

LobeOptions LobeOptionsFor(const CutConfig& cut);

// Parameter sets drawn from the fit's Gaussian, in the relative parameter space the covariance is
// given in (docs/identifiability.md): ε ~ N(0, D ρ D) with D = diag(1σ_rel), each free parameter
// θ_j = θ̂_j · exp(ε_j) (positive, and θ̂(1 + ε) to first order); parameters the covariance does
// not name keep their value. A draw beyond a model bound is reflected back at it in the
// parameter's search scale (ReflectIntoBounds), not clamped onto it, and counted. Seeded
// (common/rng.h), the same numbers everywhere. Throws Error when `id` has no usable covariance
// for `model` (a result of another model).
struct ParameterDraws {
  std::vector<std::vector<double>> sets;  // every parameter of the model, in draw order
  int reflected = 0;                      // of them, with a parameter reflected at a bound
};
ParameterDraws DrawParameterSets(const Model& model, const std::vector<double>& parameters,
                                 const Identifiability& id, int samples, std::uint64_t seed);

// v folded into [min, max] by reflection at the bounds (a triangle wave) on the log scale
// (θ → min²/θ below the lower bound) when `log_scale` and min > 0, else on the linear one; v
// itself when inside, NaN, or the bounds are empty (a fixed parameter).
double ReflectIntoBounds(double v, const Bounds& bounds, bool log_scale);

// The lobes of DrawParameterSets' sets: 5 and 95 % quantiles per speed and of the critical depth.
// A band that does not contain the estimate's critical depth (parameters at a bound move one way
// only) says so: brackets_estimate false, and why in `note`.
struct LobeBand {
  int samples = 0;    // drawn
  int reflected = 0;  // of them, with a parameter reflected at the model's bounds
  std::uint64_t seed = 1;
  std::vector<double> depth_limit_m_p05, depth_limit_m_p95;  // per speed of the grid
  double critical_depth_m_p05 = 0.0, critical_depth_m_p95 = 0.0;
  std::vector<double> critical_depth_m;  // every sample's, in draw order
  bool brackets_estimate = true;
  std::string note;  // why not, when it does not
};
// Throws Error when `id` has no usable covariance for `model` (a result of another model).
LobeBand SampleLobeBand(const Model& model, const Posture& posture,
                        const std::vector<double>& parameters, const Identifiability& id,
                        const CutConfig& cut, int samples, std::uint64_t seed,
                        const std::function<void(std::size_t, std::size_t)>& progress = {});

// The p-quantile (0..1) with linear interpolation between order statistics (numpy's default);
// +inf values sort last.
double Quantile(std::vector<double> values, double p);

}  // namespace frfit
