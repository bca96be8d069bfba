#include "frfit/modal/ema.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <limits>
#include <optional>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"
#include "frfit/frf/noise_estimate.h"
#include "frfit/modal/lscf.h"
#include "frfit/modal/lsfd.h"
#include "frfit/modal/mode_complexity.h"
#include "frfit/modal/pole_refinement.h"

namespace frfit {
namespace {

std::string Short(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

std::string Percent(double fraction) { return Short(100.0 * fraction) + " %"; }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// 1σ of the mode's frequency and damping ratio from the pole fit's covariance of (Re λ, Im λ):
// f = Im λ / 2π, ζ = −a/|λ| with λ = a + ib, dζ = (−b² da + a b db) / |λ|³. Left NaN when the
// mode's pole is not the fit's (it left the band and kept the diagram's value).
void SetUncertainty(const PoleRefinement& refinement, size_t p, EmaMode* mode) {
  const size_t n = 2 * refinement.poles.size();
  if (refinement.covariance.size() != n * n || refinement.poles[p] != mode->mode.eigenvalue) return;
  const double var_a = refinement.covariance[(2 * p) * n + 2 * p];
  const double var_b = refinement.covariance[(2 * p + 1) * n + 2 * p + 1];
  const double cov_ab = refinement.covariance[(2 * p) * n + 2 * p + 1];
  const double a = mode->mode.eigenvalue.real(), b = mode->mode.eigenvalue.imag();
  const double r3 = std::pow(std::abs(mode->mode.eigenvalue), 3);
  const double ga = -b * b / r3, gb = a * b / r3;
  mode->frequency_sigma_hz = std::sqrt(var_b) / (2.0 * std::numbers::pi);
  mode->damping_sigma = std::sqrt(ga * ga * var_a + 2 * ga * gb * cov_ab + gb * gb * var_b);
}

// A copy of `set` with its noise estimated from the data (docs/noise.md), for a set without a
// noise model; nothing when it has one, or is too short to estimate from.
std::optional<FrfSet> WithEstimatedNoise(const FrfSet& set, const std::string& source) {
  if (set.noise_variance.size() == set.H.size()) return std::nullopt;
  try {
    FrfSet estimated = set;
    estimated.noise_variance = EstimateNoise(set, source).variance;
    estimated.noise_source = "estimated";
    return estimated;
  } catch (const Error&) {
    return std::nullopt;  // too few lines: the relative weights alone
  }
}

// Moves the modes' poles back by +1/τ, so that their damping is the structure's (the frequency,
// Im λ, is unchanged); nothing for τ = +inf.
void RemoveExponentialWindow(double tau_s, EmaResult* result) {
  result->exponential_window_tau_s = tau_s;
  if (!std::isfinite(tau_s)) return;
  for (EmaMode& m : result->modes) {
    m.mode.eigenvalue += 1.0 / tau_s;
    m.mode.damping_ratio = -m.mode.eigenvalue.real() / std::abs(m.mode.eigenvalue);
  }
}

}  // namespace

bool EmaOptions::IsValid(std::string* error) const {
  const StabilisationCriteria& c = criteria;
  if (!(band_min_hz >= 0.0) || !(band_max_hz > band_min_hz))
    *error = "band: expected 0 <= f0 < f1, got [" + FormatDouble(band_min_hz) + ", " +
             FormatDouble(band_max_hz) + "]";
  else if (max_order < 0)
    *error = "max_order: expected an integer >= 1 (or 0 for the default)";
  else if (!(c.frequency_tolerance > 0.0 && c.frequency_tolerance < 1.0))
    *error = "criteria.frequency_tolerance: expected a fraction in (0, 1)";
  else if (!(c.damping_tolerance > 0.0 && std::isfinite(c.damping_tolerance)))
    *error = "criteria.damping_tolerance: expected a finite fraction > 0";
  else if (!(c.min_mac >= 0.0 && c.min_mac <= 1.0))
    *error = "criteria.min_mac: expected a value in [0, 1]";
  else if (!(c.max_damping_ratio > 0.0 && c.max_damping_ratio < 1.0))
    *error = "criteria.max_damping_ratio: expected a fraction in (0, 1)";
  else if (!(c.min_contribution >= 0.0) || !std::isfinite(c.min_contribution))
    *error = "criteria.min_contribution: expected a finite fraction >= 0";
  else if (c.min_stable_poles < 0)
    *error = "criteria.min_stable_poles: expected an integer >= 1 (or 0 for the default)";
  else
    return true;
  return false;
}

EmaResult EstimateModes(const FrfSet& set, const EmaOptions& options, const std::string& source) {
  std::string error;
  if (!options.IsValid(&error)) throw Error(source, "", error);
  EmaResult result;
  result.source = source;
  result.options = options;
  const LscfLayout layout = ChooseLayout(set.present);
  if (layout.rows.empty())
    throw Error(source, "present", "expected at least one measured FRF entry");
  std::vector<int> lines;
  for (int k = 0; k < set.num_lines(); ++k) {
    const double f = set.frequency_hz[k];
    if (f > 0.0 && f >= options.band_min_hz && f <= options.band_max_hz) lines.push_back(k);
  }
  for (int k : lines)
    for (int e = 0; e < 9; ++e) {
      const std::complex<double> h = set.H[k * 9 + e];
      if (set.present[e] && !(std::isfinite(h.real()) && std::isfinite(h.imag())))
        throw Error(source, "H",
                    "line " + std::to_string(k) + " (" + FormatDouble(set.frequency_hz[k]) +
                        " Hz): H_" + EntryName(e) + " is not finite");
    }
  const int m = layout.m();
  if (MaxOrderFor(static_cast<int>(lines.size()), layout) < 1)
    throw Error(source, "frequency_hz",
                "expected enough lines with f > 0 in the band [" +
                    FormatDouble(options.band_min_hz) + ", " + FormatDouble(options.band_max_hz) +
                    "] Hz to estimate poles, got " + std::to_string(lines.size()));
  result.method = layout.poly_reference ? "plscf" : "lscf";
  result.references = layout.references;
  result.band_min_hz = set.frequency_hz[lines.front()];
  result.band_max_hz = set.frequency_hz[lines.back()];

  const int wanted = options.max_order > 0 ? options.max_order : 120 / m;
  const LscfEstimator estimator(set, lines, layout, wanted);
  result.max_order = estimator.max_order();
  result.sampling_time_s = estimator.sampling_time_s();
  const StabilisationCriteria& criteria = options.criteria;
  for (int order = 1; order <= result.max_order; ++order) {
    std::vector<StabilisationPole> poles;
    for (LscfPole& p : estimator.Poles(order)) {
      StabilisationPole s;
      s.order = order;
      s.eigenvalue = p.eigenvalue;
      s.frequency_hz = p.eigenvalue.imag() / (2.0 * std::numbers::pi);
      s.damping_ratio = -p.eigenvalue.real() / std::abs(p.eigenvalue);
      s.vector = std::move(p.vector);
      // Candidates only: inside the band used, and damped as a structure's mode can be.
      if (s.frequency_hz < result.band_min_hz || s.frequency_hz > result.band_max_hz) continue;
      if (!(s.damping_ratio > 0.0 && s.damping_ratio < criteria.max_damping_ratio)) continue;
      poles.push_back(std::move(s));
    }
    std::sort(poles.begin(), poles.end(),
              [](const auto& a, const auto& b) { return a.frequency_hz < b.frequency_hz; });
    for (auto& p : poles) result.poles.push_back(std::move(p));
    if (options.progress) options.progress(order, result.max_order);
  }
  MarkStability(criteria, &result.poles);
  result.min_stable_poles = criteria.MinStablePolesFor(result.max_order);
  std::vector<PoleColumn> too_short;
  const std::vector<PoleColumn> columns =
      SelectColumns(result.poles, criteria, result.min_stable_poles, &too_short);
  for (const PoleColumn& c : too_short)
    result.dropped.push_back({c.frequency_hz, c.damping_ratio, c.stable_poles,
                              EmaDropReason::kFewStablePoles, kNaN});

  // The pole fit weighs by the noise where the set has a noise model, else by an estimate of it
  // (docs/noise.md): the maximum-likelihood poles and their 1σ (pole_refinement.h).
  const std::optional<FrfSet> estimated = WithEstimatedNoise(set, source);
  const FrfSet& weighed = estimated ? *estimated : set;
  std::vector<PoleColumn> kept(columns.begin(), columns.end());
  std::vector<std::complex<double>> eigenvalues;
  std::vector<double> contributions, explained;
  PoleRefinement refinement;
  const double response = WeightedResponse(set, lines);
  // The diagram's medians start an output-error fit of the modal model (a refined pole that left
  // the band or the physical damping range keeps its diagram value). Then every mode must earn
  // its place: without it the model's misfit must grow by min_contribution, else the least
  // needed one goes and the rest is refined again — a column of the diagram that only fits noise
  // at high orders explains almost nothing.
  const size_t steps = result.max_order + columns.size();
  while (true) {
    if (options.progress) options.progress(steps - kept.size(), steps);
    eigenvalues.clear();
    for (const PoleColumn& c : kept) eigenvalues.push_back(c.eigenvalue);
    refinement = RefinePoles(weighed, lines, eigenvalues);
    result.refinement_iterations += refinement.iterations;
    for (size_t p = 0; p < eigenvalues.size(); ++p) {
      const std::complex<double> s = refinement.poles[p];
      const double f = s.imag() / (2.0 * std::numbers::pi), zeta = -s.real() / std::abs(s);
      if (f >= result.band_min_hz && f <= result.band_max_hz && zeta > 0.0 &&
          zeta < criteria.max_damping_ratio)
        eigenvalues[p] = s;
    }
    const double all = ModalModelCost(set, lines, eigenvalues);
    contributions.assign(eigenvalues.size(), INFINITY);
    explained.assign(eigenvalues.size(), 0.0);
    size_t weakest = 0;
    for (size_t p = 0; p < eigenvalues.size(); ++p) {
      std::vector<std::complex<double>> without = eigenvalues;
      without.erase(without.begin() + static_cast<long>(p));
      const double cost_without = ModalModelCost(set, lines, without);
      if (all > 0.0) contributions[p] = cost_without / all - 1.0;
      if (response > 0.0) explained[p] = std::clamp((cost_without - all) / response, 0.0, 1.0);
      if (contributions[p] < contributions[weakest]) weakest = p;
    }
    if (eigenvalues.empty() || contributions[weakest] >= criteria.min_contribution) break;
    const std::complex<double> s = eigenvalues[weakest];
    result.dropped.push_back({s.imag() / (2.0 * std::numbers::pi), -s.real() / std::abs(s),
                              kept[weakest].stable_poles, EmaDropReason::kContribution,
                              contributions[weakest]});
    kept.erase(kept.begin() + static_cast<long>(weakest));
  }
  std::sort(result.dropped.begin(), result.dropped.end(),
            [](const EmaDropped& a, const EmaDropped& b) { return a.frequency_hz < b.frequency_hz; });
  if (options.progress) options.progress(steps, steps);
  const LsfdFit fit = FitResidues(set, lines, eigenvalues, RelativeWeights(set, lines));
  // A driving point's residue matrix is symmetric (reciprocity); a transfer set's is φ_a φ_bᵀ / a_r
  // and its shape is the response point's φ_a, what a modal comparison sees there. Frames named
  // alike are one point, as for symmetrisation (cost/problem.cc).
  const bool driving_point = set.response_frame == set.excitation_frame;
  for (size_t p = 0; p < kept.size(); ++p) {
    EmaMode mode;
    mode.mode.eigenvalue = eigenvalues[p];
    mode.mode.frequency_hz = eigenvalues[p].imag() / (2.0 * std::numbers::pi);
    mode.mode.damping_ratio = -eigenvalues[p].real() / std::abs(eigenvalues[p]);
    mode.mode.sensor_shape = driving_point
                                 ? ShapeFromResidues(fit.residues[p], set.present)
                                 : ResponseShapeFromResidues(fit.residues[p], set.present);
    mode.stable_poles = kept[p].stable_poles;
    mode.lowest_order = kept[p].lowest_order;
    mode.contribution = contributions[p];
    mode.explained = explained[p];
    mode.residues = fit.residues[p];
    SetUncertainty(refinement, p, &mode);
    std::vector<std::complex<double>> measured_residues;
    for (int e = 0; e < 9; ++e)
      if (set.present[e]) measured_residues.push_back(fit.residues[p][e]);
    mode.mpc = ModalPhaseCollinearity(measured_residues);
    mode.mpd_deg = MeanPhaseDeviationDeg(measured_residues);
    result.modes.push_back(std::move(mode));
  }
  result.measured = set;
  result.measured.frequency_hz.clear();
  result.measured.H.clear();
  for (int k : lines) {
    result.measured.frequency_hz.push_back(set.frequency_hz[k]);
    result.measured.H.insert(result.measured.H.end(), set.H.begin() + k * 9,
                             set.H.begin() + k * 9 + 9);
  }
  result.synthesized = fit.synthesized;
  RemoveExponentialWindow(set.exponential_window_tau_s, &result);
  return result;
}

constexpr std::pair<EmaDropReason, const char*> kDropReasons[] = {
    {EmaDropReason::kFewStablePoles, "few_stable_poles"},
    {EmaDropReason::kContribution, "contribution"}};

std::string ToString(EmaDropReason reason) { return EnumName(kDropReasons, reason); }

std::string DescribeDropped(const EmaDropped& d, const EmaResult& r) {
  if (d.reason == EmaDropReason::kFewStablePoles)
    return std::to_string(d.stable_poles) + " stable poles, a mode needs " +
           std::to_string(r.min_stable_poles) + " (--min-stable)";
  char growth[32];
  std::snprintf(growth, sizeof growth, "%.3g %%", 100.0 * d.contribution);
  return std::string("misfit growth without it ") + growth + " is below --min-contribution " +
         Percent(r.options.criteria.min_contribution) + ": the modal model does not need it";
}

std::vector<Mode> ModesOf(const EmaResult& result) {
  std::vector<Mode> modes;
  for (const EmaMode& m : result.modes) modes.push_back(m.mode);
  return modes;
}

std::string DescribeMethod(const EmaResult& r) {
  static const char* kAxes[3] = {"x", "y", "z"};
  std::string method = r.method == "plscf" ? "pLSCF (references " : "LSCF (common denominator";
  for (size_t j = 0; j < r.references.size(); ++j)
    method += std::string(j ? ", " : "") + kAxes[r.references[j]];
  const StabilisationCriteria& c = r.options.criteria;
  return method + "), orders 1-" + std::to_string(r.max_order) + ", " + Short(r.band_min_hz) + "-" +
         Short(r.band_max_hz) + " Hz; stable: df <= " + Percent(c.frequency_tolerance) +
         ", dzeta <= " + Percent(c.damping_tolerance) + ", MAC >= " + Short(c.min_mac) +
         ", 0 < zeta < " + Percent(c.max_damping_ratio) + "; a mode needs " +
         std::to_string(r.min_stable_poles) +
         " stable poles and a misfit growth without it >= " + Percent(c.min_contribution) +
         " (the misfit of the modal model without it, relative, minus 1); poles refined by an "
         "output-error fit, shapes by LSFD";
}

}  // namespace frfit
