#include "frfit/predict/lobes_model.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "frfit/common/error.h"
#include "frfit/common/rng.h"
#include "frfit/frf/synthesize.h"
#include "frfit/model/joint_coefficients.h"

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

LobeBand SampleLobeBand(const Model& model, const Posture& posture,
                        const std::vector<double>& parameters, const Identifiability& id,
                        const CutConfig& cut, int samples, std::uint64_t seed,
                        const std::function<void(std::size_t, std::size_t)>& progress) {
  const int p = static_cast<int>(id.per_parameter.size());
  if (p == 0 || id.correlation.size() != static_cast<size_t>(p) * p)
    throw Error(cut.source, "", "the parameters carry no covariance to sample the lobes' band from");
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

  const LobeOptions options = LobeOptionsFor(cut);
  LobeBand band;
  band.samples = samples;
  band.seed = seed;
  Rng rng(seed);
  std::vector<std::vector<double>> envelopes;
  Eigen::VectorXd z(p);
  for (int s = 0; s < samples; ++s) {
    for (int a = 0; a < p; ++a) z[a] = rng.Normal();
    const Eigen::VectorXd eps = root * z;
    // A parameter the data barely see has a 1σ of several 100 % (docs/identifiability.md): a draw
    // along it can leave the model's bounds by orders of magnitude (a damping 1e4 times its
    // value made the eigensolver fail). The fit could not have returned such a value; the draw is
    // clamped to the bounds the fit searched, and counted.
    std::vector<double> theta = parameters;
    bool clamped = false;
    for (int a = 0; a < p; ++a) {
      double v = parameters[index[a]] * std::exp(eps[a]);
      const Bounds& bounds = model.parameters[index[a]].bounds;
      if (bounds.min < bounds.max && !(v >= bounds.min && v <= bounds.max)) {
        v = std::isnan(v) ? parameters[index[a]] : std::clamp(v, bounds.min, bounds.max);
        clamped = true;
      }
      theta[index[a]] = v;
    }
    if (clamped) ++band.clamped;
    const JointCoefficients coefficients = Coefficients(model, theta, posture.q);
    const StabilityLobes lobes =
        ComputeStabilityLobes(ToolTipFrf(posture, coefficients, cut), options);
    band.critical_depth_m.push_back(lobes.critical_depth_m);
    envelopes.push_back(lobes.depth_limit_m);
    if (progress) progress(s + 1, samples);
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
  return band;
}

}  // namespace frfit
