#include "frfit/predict/lobes_model.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/common/rng.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/optim/parameter_space.h"

namespace frfit {

std::vector<double> LobeFrequencyGrid(const std::vector<Mode>& modes) {
  double f_low = 1.0, f_high = 1000.0;
  if (!modes.empty()) {
    f_low = 0.5 * modes.front().frequency_hz;
    f_high = 2.0 * modes.back().frequency_hz;
    for (const Mode& m : modes) {
      f_low = std::min(f_low, 0.5 * m.frequency_hz);
      f_high = std::max(f_high, 2.0 * m.frequency_hz);
    }
  }
  std::vector<double> f;
  const int decade_lines = 400;
  const int coarse = static_cast<int>(std::ceil(decade_lines * std::log10(f_high / f_low)));
  for (int i = 0; i <= coarse; ++i) f.push_back(f_low * std::pow(f_high / f_low, double(i) / coarse));
  for (const Mode& m : modes) {
    const double zeta = std::max(m.damping_ratio, 1e-6);
    for (int s = -400; s <= 400; ++s) {
      const double v = m.frequency_hz * (1.0 + zeta * 0.05 * s);
      if (v > 0.1 * f_low && v < 2.0 * f_high) f.push_back(v);
    }
  }
  std::sort(f.begin(), f.end());
  std::vector<double> out;
  for (double v : f)
    if (out.empty() || v > out.back() * (1.0 + 1e-9)) out.push_back(v);
  return out;
}

CuttingPlaneFrf ToolTipFrf(const Posture& posture, const JointCoefficients& coefficients,
                           const CutConfig& cut) {
  CuttingPlaneFrf frf;
  frf.frequency_hz = LobeFrequencyGrid(ComputeModes(posture, coefficients));
  const FrfSet set = Synthesize(posture, coefficients, frf.frequency_hz, FrfFormat::kReceptance);
  const int axis[2] = {cut.feed_axis, cut.normal_axis};
  frf.receptance.resize(4 * frf.frequency_hz.size());
  for (int l = 0; l < set.num_lines(); ++l)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) frf.receptance[4 * l + 2 * i + j] = set.at(l, axis[i], axis[j]);
  return frf;
}

LobeOptions LobeOptionsFor(const CutConfig& cut) {
  LobeOptions o;
  o.teeth = cut.teeth;
  o.kt_n_per_m2 = cut.kt_n_per_m2;
  o.alpha = AverageDirectionalFactors(cut.entry_angle_deg * M_PI / 180.0,
                                      cut.exit_angle_deg * M_PI / 180.0, cut.kr_ratio);
  o.speed_min_rpm = cut.speed_min_rpm;
  o.speed_max_rpm = cut.speed_max_rpm;
  o.speed_points = cut.speed_points;
  o.max_lobes = cut.max_lobes;
  return o;
}

double Quantile(std::vector<double> values, double p) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double at = p * (values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(at)), hi = std::min(lo + 1, values.size() - 1);
  const double fraction = at - lo;
  // Exact order statistics and equal neighbours first: 0·inf and inf − inf would be NaN.
  if (fraction == 0.0 || values[lo] == values[hi]) return values[lo];
  return values[lo] + fraction * (values[hi] - values[lo]);
}

double ReflectIntoBounds(double v, const Bounds& bounds, bool log_scale) {
  if (!(bounds.min < bounds.max) || (v >= bounds.min && v <= bounds.max) || std::isnan(v)) return v;
  // The optimiser's own parametrisation (fit/parameter_map.cc): log-scaled where the parameter is
  // searched on a log scale and its bounds are positive, else linear.
  if (log_scale && bounds.min > 0.0 && v > 0.0) {
    const double span = std::log(bounds.max / bounds.min);
    const double u = ReflectIntoUnitInterval(std::log(v / bounds.min) / span);
    if (std::isnan(u)) return v > bounds.max ? bounds.max : bounds.min;  // v infinite
    return u <= 0.0 ? bounds.min : u >= 1.0 ? bounds.max : bounds.min * std::exp(u * span);
  }
  const double u = ReflectIntoUnitInterval((v - bounds.min) / (bounds.max - bounds.min));
  if (std::isnan(u)) return v > bounds.max ? bounds.max : bounds.min;
  return u <= 0.0 ? bounds.min : u >= 1.0 ? bounds.max : bounds.min + u * (bounds.max - bounds.min);
}

ParameterDraws DrawParameterSets(const Model& model, const std::vector<double>& parameters,
                                 const Identifiability& id, int samples, std::uint64_t seed) {
  const int p = static_cast<int>(id.per_parameter.size());
  if (p == 0 || id.correlation.size() != static_cast<size_t>(p) * p)
    throw Error("the parameters carry no covariance to draw parameter sets from");
  std::vector<int> index(p);
  Eigen::MatrixXd cov(p, p);
  for (int a = 0; a < p; ++a) {
    index[a] = model.FindParameter(id.per_parameter[a].name);
    if (index[a] < 0)
      throw Error("the fit's covariance names parameter '" + id.per_parameter[a].name +
                  "', which model " + model.name + " lacks");
  }
  // Relative 1σ: of the value the covariance was taken at (std_relative = 1σ / |value|).
  std::vector<double> rel(p);
  for (int a = 0; a < p; ++a) {
    const double value = parameters[index[a]];
    rel[a] = value != 0.0 ? id.per_parameter[a].std_absolute / std::abs(value) : 0.0;
    if (!std::isfinite(rel[a])) rel[a] = 0.0;
  }
  for (int a = 0; a < p; ++a)
    for (int b = 0; b < p; ++b)
      cov(a, b) = rel[a] * rel[b] * (a == b ? 1.0 : id.correlation[a * p + b]);
  // A square root that survives the floored, (anti-)correlated directions (docs/identifiability.md):
  // V·sqrt(max(D, 0)).
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(cov);
  const Eigen::MatrixXd root =
      eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal();

  ParameterDraws draws;
  Rng rng(seed);
  Eigen::VectorXd z(p);
  for (int s = 0; s < samples; ++s) {
    for (int a = 0; a < p; ++a) z[a] = rng.Normal();
    const Eigen::VectorXd eps = root * z;
    // A parameter the data barely see has a 1σ of several 100 % (docs/identifiability.md): a draw
    // along it can leave the model's bounds, where the fit could not have landed. Clamping such a
    // draw piled every one of them on the bound (a damping at its lower bound then only ever
    // grew: a lobes band beside its estimate); it is reflected back into the bounds instead, in
    // the parameter's search scale, as the optimisers keep their points inside.
    std::vector<double> theta = parameters;
    bool reflected = false;
    for (int a = 0; a < p; ++a) {
      const ParameterSpec& spec = model.parameters[index[a]];
      const double v = parameters[index[a]] * std::exp(eps[a]);
      double inside = std::isnan(v) ? parameters[index[a]] : ReflectIntoBounds(v, spec.bounds, spec.log_scale);
      if (inside != v && !std::isnan(v)) reflected = true;
      theta[index[a]] = inside;
    }
    if (reflected) ++draws.reflected;
    draws.sets.push_back(std::move(theta));
  }
  return draws;
}

namespace {

// Why a band does not contain its estimate: the free parameters at a bound move one way only.
std::string BandNote(const Identifiability& id, double estimate, const LobeBand& band) {
  std::string at_bound;
  for (const ParameterIdentifiability& q : id.per_parameter)
    if (q.at_bound != BoundFlag::kNone)
      at_bound += (at_bound.empty() ? "" : ", ") + q.name + " (at its " + ToString(q.at_bound) + " bound)";
  const std::string side = estimate < band.critical_depth_m_p05 ? "below" : "above";
  if (!at_bound.empty())
    return "the estimate lies " + side + " the band: " + at_bound +
           " can only move away from the bound in a draw, so the data do not decide the band";
  return "the estimate lies " + side +
         " the band: the lobes respond to the parameters too nonlinearly over their 1 sigma";
}

}  // namespace

LobeBand SampleLobeBand(const Model& model, const Posture& posture,
                        const std::vector<double>& parameters, const Identifiability& id,
                        const CutConfig& cut, int samples, std::uint64_t seed,
                        const std::function<void(std::size_t, std::size_t)>& progress) {
  if (id.per_parameter.empty() ||
      id.correlation.size() != id.per_parameter.size() * id.per_parameter.size())
    throw Error(cut.source, "", "the parameters carry no covariance to sample the lobes' band from");
  const ParameterDraws draws = DrawParameterSets(model, parameters, id, samples, seed);
  const LobeOptions options = LobeOptionsFor(cut);
  LobeBand band;
  band.samples = samples;
  band.seed = seed;
  band.reflected = draws.reflected;
  std::vector<std::vector<double>> envelopes;
  for (const std::vector<double>& theta : draws.sets) {
    const JointCoefficients coefficients = Coefficients(model, theta, posture.q);
    const StabilityLobes lobes =
        ComputeStabilityLobes(ToolTipFrf(posture, coefficients, cut), options);
    band.critical_depth_m.push_back(lobes.critical_depth_m);
    envelopes.push_back(lobes.depth_limit_m);
    if (progress) progress(envelopes.size(), draws.sets.size());
  }
  const size_t points = static_cast<size_t>(options.speed_points);
  band.depth_limit_m_p05.resize(points);
  band.depth_limit_m_p95.resize(points);
  std::vector<double> column(samples);
  for (size_t g = 0; g < points; ++g) {
    for (int s = 0; s < samples; ++s) column[s] = envelopes[s][g];
    band.depth_limit_m_p05[g] = Quantile(column, 0.05);
    band.depth_limit_m_p95[g] = Quantile(column, 0.95);
  }
  band.critical_depth_m_p05 = Quantile(band.critical_depth_m, 0.05);
  band.critical_depth_m_p95 = Quantile(band.critical_depth_m, 0.95);
  // The band is that of the estimate only when it contains it; the estimate's own lobes are those
  // of `parameters` (ToolTipFrf at them, as frfit lobes computes).
  const double estimate =
      ComputeStabilityLobes(ToolTipFrf(posture, Coefficients(model, parameters, posture.q), cut), options)
          .critical_depth_m;
  band.brackets_estimate =
      !(estimate < band.critical_depth_m_p05) && !(estimate > band.critical_depth_m_p95);
  if (!band.brackets_estimate) band.note = BandNote(id, estimate, band);
  return band;
}

}  // namespace frfit
