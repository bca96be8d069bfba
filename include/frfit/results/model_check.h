// The model check of a fit (docs/noise.md, "Model check"): does the fitted model explain the
// measured FRFs as well as their noise allows? A model that lacks some physics (a flexible base, a
// local mode) still fits — its joint values then absorb what it lacks and are effective values,
// not physics — and this check is what tells the user so.
//
// Everything is read off the residual against the noise model, per line and fitted entry,
//     z = (H_measured − H_model) / σ,      σ² the noise variance at the model's FRF,
// which is CN(0, 1) — independent from line to line, E|z|² = 1 — when the model is right and σ is
// the noise's. The linear residual, not the log one: its distribution does not depend on how far
// a line stands above the noise floor. Where σ² is itself an estimate (the coherence of n
// averages) |z|² follows a heavier-tailed F law; the tests then read z mapped to the known-variance
// law (model_check_noise.h), the reported sizes z itself. Tests, each with a false-alarm
// probability of about 1e-3 per fit on right-model data:
//   - χ²: 2·Σ|z|² against its m − p degrees of freedom (m real residuals, p free parameters);
//     beyond ReducedChi2Limit (identifiability.h) the residual holds more than the noise;
//   - structure: for each posture and entry, windows of kWindowLines lines whose χ² the noise
//     alone would exceed with probability below 1e-3 over all windows tested (named as bands), and
//     the lag-one correlation of z along the lines, normalised by its own scale (a smooth misfit
//     where the noise is white, whatever the noise level);
//   - unexplained modes: measured modes (the modal comparison's reference) left over when paired
//     one to one with the fitted modes (or whose fitted partner is pulled off them towards one left
//     over), and modes of the residual H_measured − H_model (frfit ema on it) that no fitted or
//     measured mode stands near, around which the residual exceeds the noise — a mode the model
//     lacks is a clean resonance of the residual, at its own frequency (the measured FRFs' own EMA
//     can miss it under noise);
//   - bounds: a free parameter held at a bound that the data pull beyond it (score test > 3σ).
// Parameters at a bound that the data do not pull (an unidentifiable damping) are no misfit.
#pragma once

#include <limits>
#include <span>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/results/identifiability.h"
#include "frfit/results/modal_comparison.h"
#include "frfit/fit/parameter_map.h"

namespace frfit {

inline constexpr int kWindowLines = 8;

struct ResidualBand {
  std::string posture;
  double from_hz = 0.0, to_hz = 0.0;
  std::vector<int> entries;   // EntryIndex, ascending
  double reduced_chi2 = 0.0;  // over its lines and entries
};

struct UnexplainedMode {
  std::string posture;
  double frequency_hz = 0.0;
  double damping_ratio = 0.0;
  std::vector<int> entries;  // where the residual around it exceeds the noise most
  double reduced_chi2 = 0.0;  // of the residual within kWindowLines / 2 lines of it
  // NaN: no fitted mode pairs with it; else the fitted mode that pairs with it but is pulled off
  // it towards a measured mode left over (model_check.cc, FindUnexplainedModes). Not in files.
  double pulled_fitted_hz = std::numeric_limits<double>::quiet_NaN();
};

struct CorrelatedResidual {
  std::string posture;
  int entry = 0;
  double score = 0.0;  // the lag-one correlation in standard deviations of its noise value
};

struct BoundPull {
  std::string parameter;
  BoundFlag bound = BoundFlag::kNone;
  double score = 0.0;  // how hard the data pull beyond the bound, in standard deviations
};

struct ModelCheck {
  bool has_noise_model = false;
  std::string noise_source;  // the postures' sources, e.g. "variance" or "estimated"
  double reduced_chi2 = 0.0;  // NaN without a noise model
  int degrees_of_freedom = 0;
  std::vector<std::pair<std::string, double>> posture_reduced_chi2;
  std::vector<ResidualBand> bands;
  std::vector<CorrelatedResidual> correlated;
  std::vector<UnexplainedMode> unexplained_modes;
  std::vector<BoundPull> bound_pulls;
  // One sentence per finding; empty when the model explains the data.
  std::vector<std::string> reasons;
  // "misfit" with any reason, "consistent" without; "unchecked" without a noise model (nothing
  // to hold the residual against: a file without one and too few lines to estimate it).
  std::string verdict() const {
    return !has_noise_model ? "unchecked" : reasons.empty() ? "consistent" : "misfit";
  }
};

// `problem` with the weights the fit ended on, `u` the fitted point, `modal` each posture's
// comparison with its reference modes (problem order; may be empty or hold null), `model_frfs`
// the model's FRFs at u as Synthesize gives them (problem order), when the caller has them
// (otherwise synthesized here).
ModelCheck CheckModel(const Problem& problem, const ParameterMap& map, std::span<const double> u,
                      const std::vector<const ModalComparison*>& modal = {},
                      const std::vector<FrfSet>* model_frfs = nullptr);

// The model check's χ² test alone at u, without the others' costs: the reduced χ² it holds against
// ReducedChi2Limit (of the residual mapped to the known-variance law where the noise is itself an
// estimate) and its degrees of freedom; NaN and 0 without a noise model. A fleet's warm night asks
// it of the previous result on tonight's data (docs/fleet.md, "Short path").
struct Chi2Test {
  double reduced_chi2 = std::numeric_limits<double>::quiet_NaN();
  int degrees_of_freedom = 0;
};
Chi2Test ModelCheckChi2(const Problem& problem, const ParameterMap& map, std::span<const double> u);

}  // namespace frfit
